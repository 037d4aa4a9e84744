import { z } from 'zod';
import { domainSchema } from '../rules.ts';

/** The DNS name a TXT proof lives at: `_attestation-service.<domain>`. */
export const dnsProofName = (domain: string) => `_attestation-service.${domain}`;
/** The TXT record's text: the prefix says whose token it is, so it sits beside other services' proofs. */
export const dnsProofValue = (token: string) => `attestation-service-verification=${token}`;
/** The https file a web server proves the domain with; it holds the token. */
export const wellKnownProofUrl = (domain: string) => `https://${domain}/.well-known/attestation-service.txt`;

export const PROOF_METHODS = ['dns', 'well-known'] as const;
export type ProofMethod = (typeof PROOF_METHODS)[number];

export const domainInput = z.strictObject({ domain: domainSchema });

export const domainView = z.object({
  domain: z.string(),
  token: z.string(),
  /** Where and what to publish: either proof is enough. */
  dnsName: z.string(),
  dnsValue: z.string(),
  wellKnownUrl: z.string(),
  createdAt: z.string(),
  verifiedAt: z.string().nullable(),
  verifiedBy: z.enum(PROOF_METHODS).nullable(),
});
export type DomainView = z.infer<typeof domainView>;

export const domainList = z.object({ data: z.array(domainView) });

/** A check's answer: which proof passed (null: none), and what each method found, in words. */
export const verifyOutput = z.object({
  domain: domainView,
  verified: z.boolean(),
  method: z.enum(PROOF_METHODS).nullable(),
  checks: z.object({ dns: z.string(), wellKnown: z.string() }),
});
export type VerifyOutcome = z.infer<typeof verifyOutput>;
