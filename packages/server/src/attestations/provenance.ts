import { z } from 'zod';
import type { Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import { timestamp } from '../http/openapi-fields.ts';
import { hexHash, modeSchema, originSchema, uidSchema } from './contracts.ts';
import { EXAMPLE_UID } from './openapi.ts';
import type { PreparedAttestation } from './prepare.ts';
import { provenanceChain, refTargets } from './provenance-store.ts';

/**
 * The most attestations one provenance answer holds (this one and its origins): the walk is one query of at most
 * this many index probes, whatever a client built; a longer chain answers `truncated: true`.
 */
export const MAX_PROVENANCE_LINKS = 32;

const link = z
  .object({
    uid: uidSchema,
    refUid: uidSchema.nullable().meta({ description: 'The next (older) link; null at the origin.' }),
    type: originSchema,
    mode: modeSchema,
    attester: z.string().meta({ example: '0x5FbDB2315678afecb367f032d93F642f64180aa3' }),
    txHash: hexHash.nullable(),
    createdAt: timestamp(),
    revokedAt: timestamp().nullable(),
    verdict: z.enum(['valid', 'revoked']).meta({ description: "The link's standing: revoked once its claim is." }),
    verifyUrl: z.string().meta({ example: `https://verify.example.com/${EXAMPLE_UID}` }),
  })
  .meta({ id: 'ProvenanceLink' });

export const provenanceOutput = z
  .object({
    uid: uidSchema,
    links: z
      .array(link)
      .meta({ description: 'This attestation first, then each origin back to the first, newest first.' }),
    truncated: z.boolean().meta({ description: `true when the chain goes on past ${MAX_PROVENANCE_LINKS} links.` }),
  })
  .meta({ id: 'Provenance' });
export type Provenance = z.infer<typeof provenanceOutput>;

function unknownOrigin(refUid: string): AppError {
  return new AppError(
    'NOT_FOUND',
    `refUid ${refUid} is not an attestation of this service: a claim derives only from one that exists already.`,
    { refUid },
  );
}

function offchainOrigin(refUid: string): AppError {
  return new AppError(
    'ORIGIN_NOT_ONCHAIN',
    `refUid ${refUid} is an off-chain attestation, and EAS accepts only an on-chain refUID: promote it first ` +
      `(POST /v1/attestations/${refUid}/onchain) and derive from the on-chain uid it gets, or create this one off-chain.`,
    { refUid },
  );
}

/**
 * Checks each item's refUid, in ONE read: it must name an attestation that exists now (so the new claim is younger
 * than its origin: links point only backwards and can never close a cycle), and an on-chain item's must be on chain
 * (EAS reverts a refUID it does not hold, and with it the whole multiAttest). An origin's revocation does not matter:
 * the derivation happened, and the chain shows the origin's verdict. Returns each item's refusal, or undefined.
 */
export async function checkOrigins(db: Db, items: PreparedAttestation[]): Promise<Array<AppError | undefined>> {
  const wanted = [...new Set(items.flatMap((item) => (item.refUid ? [item.refUid] : [])))];
  const found = await refTargets(db, wanted);
  return items.map((item) => {
    if (!item.refUid) return undefined;
    const origin = found.get(item.refUid);
    if (!origin) return unknownOrigin(item.refUid);
    if (item.mode === 'onchain' && origin.mode !== 'onchain') return offchainOrigin(item.refUid);
    return undefined;
  });
}

/** The provenance answer of `uid`: 404 when it is no attestation of this service. */
export async function provenanceOf(db: Db, uid: string, verifyBaseUrl: string): Promise<Provenance> {
  const rows = await provenanceChain(db, uid.toLowerCase(), MAX_PROVENANCE_LINKS + 1);
  if (rows.length === 0) throw notFound(`Attestation ${uid}`);
  const links = rows.slice(0, MAX_PROVENANCE_LINKS).map((row) => ({
    uid: row.uid as `0x${string}`,
    refUid: row.refUid as `0x${string}` | null,
    type: row.type,
    mode: row.mode,
    attester: row.attester,
    txHash: row.txHash,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
    verdict: row.revokedAt === null ? ('valid' as const) : ('revoked' as const),
    verifyUrl: `${verifyBaseUrl}/${row.uid}`,
  }));
  return { uid: links[0]!.uid, links, truncated: rows.length > MAX_PROVENANCE_LINKS };
}
