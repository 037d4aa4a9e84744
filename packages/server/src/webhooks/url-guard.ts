import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to every address it has (the system resolver by default; tests inject their own). */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family as 4 | 6 }));

/**
 * Addresses a receiver may never be: this host, private networks, link-local (cloud metadata lives at
 * 169.254.169.254 and fd00:ec2::254), carrier-grade NAT, multicast, documentation and reserved ranges.
 */
const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], ['::1', 128], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(net, bits, 'ipv6');

/** The IPv4 address an IPv6 one carries (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower) ?? /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  if (!hex) return undefined;
  const n = (parseInt(hex[1]!, 16) << 16) | parseInt(hex[2]!, 16);
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** Whether a receiver may live at this IP address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return isPublicAddress(v4);
  return !blocked.check(address, 'ipv6');
}

export class UnsafeUrlError extends Error {}

export interface UrlPolicy {
  /** WEBHOOK_ALLOW_PRIVATE_URLS: http and private, loopback and link-local receivers (local development, tests). */
  allowPrivate: boolean;
  resolve: Resolver;
}

/**
 * Checks a receiver URL and resolves it: https (unless private URLs are allowed), no credentials, and every
 * address its host resolves to public. Returns the vetted addresses: the caller connects to one of those and
 * never resolves again, so a DNS answer that changes between check and connect (rebinding) cannot reach inside.
 */
export async function vetUrl(raw: string, policy: UrlPolicy): Promise<{ url: URL; addresses: Array<{ address: string; family: 4 | 6 }> }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('is not a valid URL');
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) throw new UnsafeUrlError('must use https');
  if (url.username || url.password) throw new UnsafeUrlError('must not carry credentials');
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
    const inside = addresses.find((a) => !isPublicAddress(a.address));
    if (inside) throw new UnsafeUrlError(`resolves to ${inside.address}, a loopback, private, link-local or reserved address`);
  }
  return { url, addresses };
}
