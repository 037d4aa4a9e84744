import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Resolves a host name to every address it has (the system resolver by default; tests inject their own). */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family as 4 | 6,
  }));

// The address classes are ipaddr.js's (maintained with the IANA special-purpose registries): only its `unicast`
// is a place a receiver may live. What it calls private, loopback, link-local (cloud metadata at 169.254.169.254),
// unique-local (fd00:ec2::254), carrier-grade NAT, reserved, documentation, benchmarking, multicast and the rest
// are refused.
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique-local (private)',
  deprecatedSiteLocal: 'site-local (private)',
  discard: 'discard-only',
  benchmarking: 'benchmarking',
};

/** Global unicast IPv6 (RFC 4291 §2.4): everything else that ipaddr.js leaves `unicast` is unassigned. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);

/**
 * The IPv4 addresses an IPv6 address carries (docs/decisions.md, "Input rules"), which decide where a packet to it
 * really goes:
 * mapped `::ffff:0:0/96`, SIIT `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48` (RFC 8215, last 32 bits),
 * IPv4-compatible `::/96` (deprecated; ipaddr.js calls it unicast), 6to4 `2002::/16` (bits 16–47), and Teredo
 * `2001::/32`: its server (bits 32–63) and its client (the last 32 bits inverted), both judged.
 */
function carriedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return [ipv4Of(p[6], p[7])];
    case '6to4':
      return [ipv4Of(p[1], p[2])];
    case 'teredo':
      return [ipv4Of(p[2], p[3]), ipv4Of(p[6] ^ 0xffff, p[7] ^ 0xffff)];
    case 'unicast':
      return p.slice(0, 6).every((part) => part === 0) ? [ipv4Of(p[6], p[7])] : undefined;
    default:
      return undefined;
  }
}

/** Why an address is no place for a receiver, or undefined when it is public. */
function whyNotPublic(address: string): string | undefined {
  if (!isIP(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') {
    const range = (parsed as ipaddr.IPv4).range();
    return range === 'unicast' ? undefined : `a ${RANGE_WORDS[range] ?? range} address`;
  }
  const v6 = parsed as ipaddr.IPv6;
  const carried = carriedIpv4(v6);
  if (carried) {
    const inside = carried.map((v4) => [v4.toString(), whyNotPublic(v4.toString())] as const).find(([, why]) => why);
    return inside && `carrying ${inside[0]}, ${inside[1]}`;
  }
  const range = v6.range();
  if (range !== 'unicast') return `a ${RANGE_WORDS[range] ?? range} address`;
  return v6.match(GLOBAL_UNICAST) ? undefined : 'outside global unicast (2000::/3)';
}

/** Whether a receiver may live at this IP address (an IPv6 one that carries an IPv4 one is judged by that). */
export function isPublicAddress(address: string): boolean {
  return whyNotPublic(address) === undefined;
}

/** Ports a receiver may listen on: HTTPS's own, or unprivileged ones (not SSH, SMTP, databases' low ports...). */
const isAllowedPort = (port: number) => port === 443 || (port >= 1024 && port <= 65535);

/** Why a URL was refused: `scheme` (not https) and `private` (not public) are the ones development runs into. */
type UnsafeUrlKind = 'scheme' | 'private' | 'other';

export class UnsafeUrlError extends Error {
  readonly kind: UnsafeUrlKind;
  constructor(message: string, kind: UnsafeUrlKind = 'other') {
    super(message);
    this.kind = kind;
  }
}

export interface UrlPolicy {
  /** WEBHOOK_ALLOW_PRIVATE_URLS: http, any port, and private, loopback and link-local receivers (development, tests). */
  allowPrivate: boolean;
  resolve: Resolver;
}

/**
 * A `webhooks listen` subscription's receiver: http or https to a loopback address literal, nothing else. Only the
 * operator's CLI makes such a subscription (never the API), so this is no way around the checks below for anyone
 * else; the worker still refuses any other address for it.
 */
export function vetLoopbackUrl(raw: string): { url: URL; addresses: Array<{ address: string; family: 4 | 6 }> } {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  const host = url?.hostname.replace(/^\[(.*)\]$/, '$1') ?? '';
  const family = isIP(host);
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password || family === 0)
    throw new UnsafeUrlError('is not a listen receiver (http to a loopback address)');
  if (ipaddr.parse(host).range() !== 'loopback')
    throw new UnsafeUrlError(`resolves to ${host}, not a loopback address; a listen receiver lives on this machine`);
  return { url, addresses: [{ address: host, family: family as 4 | 6 }] };
}

/**
 * Checks a receiver URL and resolves it: https on 443 or 1024–65535 (unless private URLs are allowed), no
 * credentials, and every address its host resolves to public. Returns the vetted addresses: the caller connects
 * to one of those and never resolves again, so a DNS answer that changes between check and connect (rebinding)
 * cannot reach inside.
 */
export async function vetUrl(
  raw: string,
  policy: UrlPolicy,
): Promise<{ url: URL; addresses: Array<{ address: string; family: 4 | 6 }> }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('is not a valid URL');
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:'))
    throw new UnsafeUrlError('must use https', 'scheme');
  if (url.username || url.password) throw new UnsafeUrlError('must not carry credentials');
  const port = url.port === '' ? 443 : Number(url.port);
  if (!policy.allowPrivate && !isAllowedPort(port))
    throw new UnsafeUrlError(`port ${port} is not allowed: use 443 or 1024–65535`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Array<{ address: string; family: 4 | 6 }>;
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) as 4 | 6 }];
  else {
    try {
      addresses = await policy.resolve(host);
    } catch {
      throw new UnsafeUrlError(`host ${host} could not be resolved`);
    }
    if (addresses.length === 0) throw new UnsafeUrlError(`host ${host} could not be resolved`);
  }
  if (!policy.allowPrivate) {
    for (const { address } of addresses) {
      const why = whyNotPublic(address);
      if (why) throw new UnsafeUrlError(`resolves to ${address}, ${why}; receivers must be public`, 'private');
    }
  }
  return { url, addresses };
}
