import { Resolver } from 'node:dns/promises';
import type { UrlPolicy } from '../webhooks/url-guard.ts';
import { dnsProofName, dnsProofValue, wellKnownProofUrl, type ProofMethod } from './contracts.ts';
import { fetchProofFile } from './well-known.ts';

/** The TXT records at a name, each as its strings (node:dns's shape); tests hand in their own. */
type TxtLookup = (name: string) => Promise<string[][]>;

/** What a check found: the method that passed (null: none), and each method's finding in words. */
export interface ProofResult {
  method: ProofMethod | null;
  checks: { dns: string; wellKnown: string };
}

export type DomainProver = (domain: string, token: string) => Promise<ProofResult>;

/** TXT lookups through DOMAIN_VERIFY_DNS_SERVERS, or the system's servers when none are set; a few seconds at most. */
export function txtLookup(servers: string[]): TxtLookup {
  const resolver = new Resolver({ timeout: 2_000, tries: 2 });
  if (servers.length > 0) resolver.setServers(servers);
  return (name) => resolver.resolveTxt(name);
}

async function checkDns(lookup: TxtLookup, domain: string, token: string): Promise<{ ok: boolean; finding: string }> {
  const name = dnsProofName(domain);
  const expected = dnsProofValue(token);
  try {
    // a long TXT record arrives in 255-byte strings: joined, they are the record's text
    const records = (await lookup(name)).map((strings) => strings.join('').trim());
    if (records.includes(expected)) return { ok: true, finding: `${name} has the TXT record ${expected}` };
    return { ok: false, finding: `${name} has TXT records, but none is ${expected}` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return { ok: false, finding: `${name} has no TXT record` };
    return { ok: false, finding: `the DNS lookup of ${name} failed (${code ?? 'no answer'})` };
  }
}

async function checkWellKnown(
  url: string,
  token: string,
  policy: UrlPolicy,
): Promise<{ ok: boolean; finding: string }> {
  const fetched = await fetchProofFile(url, policy);
  if (!fetched.ok) return { ok: false, finding: fetched.reason };
  if (fetched.text.includes(token)) return { ok: true, finding: `${url} holds the token` };
  return { ok: false, finding: `${url} does not hold this domain's token` };
}

/**
 * Checks both proofs at once (each bounded by its own timeout) and says which passed. `wellKnownUrl` is the
 * file's address for a domain: https on 443 in a deployment; tests point it at a local server.
 */
export function createDomainProver(deps: {
  lookup: TxtLookup;
  policy: UrlPolicy;
  wellKnownUrl?: (domain: string) => string;
}): DomainProver {
  const urlOf = deps.wellKnownUrl ?? wellKnownProofUrl;
  return async (domain, token) => {
    const [dns, wellKnown] = await Promise.all([
      checkDns(deps.lookup, domain, token),
      checkWellKnown(urlOf(domain), token, deps.policy),
    ]);
    const method = dns.ok ? 'dns' : wellKnown.ok ? 'well-known' : null;
    return { method, checks: { dns: dns.finding, wellKnown: wellKnown.finding } };
  };
}
