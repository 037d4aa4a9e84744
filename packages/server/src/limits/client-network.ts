import ipaddr from 'ipaddr.js';

/** The IPv6 prefix a client's limits are keyed by unless RATE_LIMIT_IPV6_PREFIX says otherwise. */
export const DEFAULT_IPV6_PREFIX = 64;

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
/** A dotted quad of decimal octets without leading zeros: the form ipaddr.js's `toString` gives. */
const CANONICAL_IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/**
 * The network a client's per-address limits count against: an IPv4 address as it is, an IPv6 address by its
 * `ipv6Prefix` network (a host is routinely given a whole /64, so counting single addresses lets it rotate past any
 * limit), and an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its IPv4 address. Text that is no address (a
 * misconfigured proxy's header) is kept as it is: it still names one bucket.
 */
export function clientNetworkOf(address: string, ipv6Prefix: number = DEFAULT_IPV6_PREFIX): string {
  // the common case, an IPv4 address written as ipaddr.js writes it back, is its own network: no parse
  if (CANONICAL_IPV4.test(address)) return address;
  // a zone index (fe80::1%eth0) names an interface, not another network
  const bare = address.trim().replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return address;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  if (ipv6Prefix >= 128) return v6.toString();
  const mask = ipaddr.IPv6.subnetMaskFromPrefixLength(ipv6Prefix).toByteArray();
  const network = ipaddr.fromByteArray(v6.toByteArray().map((byte, i) => byte & mask[i]!)) as ipaddr.IPv6;
  return `${network.toString()}/${ipv6Prefix}`;
}
