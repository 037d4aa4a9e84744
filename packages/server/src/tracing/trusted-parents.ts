import ipaddr from 'ipaddr.js';
import { ConfigError } from '../config.ts';

/** Whether a request from this client address may make its `traceparent` the parent of the service's spans. */
type ParentTrust = (clientAddress: string | undefined) => boolean;

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** An address as it is compared: an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its IPv4 address. */
function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = address.trim().replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return undefined;
  const value = ipaddr.parse(bare);
  return value.kind() === 'ipv6' && (value as ipaddr.IPv6).isIPv4MappedAddress()
    ? (value as ipaddr.IPv6).toIPv4Address()
    : value;
}

function rangeOf(entry: string): Range | undefined {
  if (entry.includes('/')) {
    try {
      return ipaddr.parseCIDR(entry);
    } catch {
      return undefined;
    }
  }
  const address = parsed(entry);
  return address && [address, address.kind() === 'ipv4' ? 32 : 128];
}

/**
 * OTEL_TRUSTED_PARENTS: whose `traceparent` the service follows. A caller's sampled flag would otherwise force
 * export whatever the sampler says, into a trace id the caller chose (docs/operations.md, "Tracing"). `none` (the
 * default): nobody's, each request starts a trace of its own and links the caller's; `all`: everyone's (a
 * deployment whose every caller is its own); else a comma-separated list of addresses and CIDR ranges, matched
 * against the client address as TRUST_PROXY judges it.
 */
export function parentTrustFrom(env: NodeJS.ProcessEnv): ParentTrust {
  const value = (env.OTEL_TRUSTED_PARENTS ?? 'none').trim().toLowerCase();
  if (value === 'none' || value === '') return () => false;
  if (value === 'all') return () => true;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const ranges = entries.map(rangeOf);
  const bad = entries.filter((_, i) => ranges[i] === undefined);
  if (bad.length > 0)
    throw new ConfigError(
      `invalid configuration: OTEL_TRUSTED_PARENTS=${bad.join(',')} is not an address or CIDR range: ` +
        'set it to none, all, or addresses and ranges such as 10.0.0.0/8,fd00::/8',
    );
  const trusted = ranges as Range[];
  return (clientAddress) => {
    const address = clientAddress === undefined ? undefined : parsed(clientAddress);
    return (
      address !== undefined && trusted.some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits))
    );
  };
}
