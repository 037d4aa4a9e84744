import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPublicAddress, vetUrl, type Resolver } from '../../src/webhooks/url-guard.ts';

/** A Teredo address (2001::/32): server IPv4 in bits 32–63, client IPv4 inverted in the last 32 bits. */
function teredo(server: string, client: string): string {
  const hex = (v4: string, invert: boolean) => {
    const n = (v4.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0) ^ (invert ? 0xffffffff : 0)) >>> 0;
    return `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  };
  return `2001:0:${hex(server, false)}:8000:63bf:${hex(client, true)}`;
}

/** Every IPv6 form that carries an IPv4 address (docs/decisions.md, "Input rules"), with that address written in. */
const CARRIERS: Array<[string, (v4: string) => string]> = [
  ['IPv4-compatible ::a.b.c.d', (v4) => `::${v4}`],
  ['IPv4-mapped ::ffff:a.b.c.d', (v4) => `::ffff:${v4}`],
  ['SIIT ::ffff:0:a.b.c.d', (v4) => `::ffff:0:${v4}`],
  ['NAT64 64:ff9b::a.b.c.d', (v4) => `64:ff9b::${v4}`],
  ['local NAT64 64:ff9b:1::a.b.c.d', (v4) => `64:ff9b:1::${v4}`],
  ['local NAT64 with a subnet, 64:ff9b:1:2a::a.b.c.d', (v4) => `64:ff9b:1:2a::${v4}`],
  [
    '6to4 2002:aabb:ccdd::1',
    (v4) =>
      `2002:${v4
        .split('.')
        .map((o) => Number(o).toString(16).padStart(2, '0'))
        .join('')
        .replace(/^(....)/, '$1:')}::1`,
  ],
  ['Teredo client', (v4) => teredo('65.54.227.120', v4)],
  ['Teredo server', (v4) => teredo(v4, '8.8.4.4')],
];

const INSIDE_IPV4 = [
  '127.0.0.1',
  '10.0.0.1',
  '172.16.5.4',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '192.0.2.1',
  '224.0.0.1',
  '255.255.255.255',
];

describe('receiver address guard', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '192.0.0.8',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.9',
    '192.88.99.1',
    '240.0.0.1',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254',
    'fec0::1',
    'ff02::1',
    '100::1',
    '2001:db8::1',
    '2001:2::1',
    '2001:20::1',
    '3fff::1',
    '5f00::1',
    '4000::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::10.0.0.1',
    '2002:c0a8:0101::1',
    'not-an-ip',
    '',
  ])('refuses %s', (address) => expect(isPublicAddress(address)).toBe(false));

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '2606:2800:220:1:248:1893:25c8:1946',
    '::ffff:93.184.216.34',
  ])('allows %s', (address) => expect(isPublicAddress(address)).toBe(true));

  // the issue's own examples: each reached 127.0.0.1 through a form the old guard did not know
  it.each([
    '::127.0.0.1',
    '::7f00:1',
    '::ffff:0:127.0.0.1',
    '64:ff9b:1::7f00:1',
    teredo('65.54.227.120', '127.0.0.1'),
    teredo('127.0.0.1', '8.8.8.8'),
  ])('refuses %s, which carries a loopback IPv4 address', (address) => expect(isPublicAddress(address)).toBe(false));

  describe.each(CARRIERS)('%s', (_, carry) => {
    it.each(INSIDE_IPV4)('refuses it carrying %s', (v4) => expect(isPublicAddress(carry(v4))).toBe(false));
    it('allows it carrying a public address (8.8.8.8)', () => expect(isPublicAddress(carry('8.8.8.8'))).toBe(true));
  });

  it('judges every carrying form exactly as the IPv4 address it carries', () => {
    const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
    fc.assert(
      fc.property(
        ipv4,
        fc.constantFrom(...CARRIERS),
        (v4, [, carry]) => isPublicAddress(carry(v4)) === isPublicAddress(v4),
      ),
      { numRuns: 2000 },
    );
  });
});

describe('receiver URL guard', () => {
  const publicHost: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
  const strict = { allowPrivate: false, resolve: publicHost };

  it.each([
    ['https://[::127.0.0.1]/', '::7f00:1, carrying 127.0.0.1, a loopback address'],
    ['https://[::ffff:0:127.0.0.1]/', 'carrying 127.0.0.1, a loopback address'],
    ['https://[64:ff9b:1::7f00:1]/', 'carrying 127.0.0.1, a loopback address'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'carrying 192.0.2.45, a reserved address'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254, a unique-local (private) address'],
    ['https://169.254.169.254/', '169.254.169.254, a link-local address'],
  ])('refuses %s and says why', async (url, why) => {
    await expect(vetUrl(url, strict)).rejects.toThrow(why);
  });

  it.each([
    'https://hooks.example/',
    'https://hooks.example:443/',
    'https://hooks.example:1024/',
    'https://hooks.example:8443/',
    'https://hooks.example:65535/',
  ])('allows port 443 and 1024–65535: %s', async (url) => {
    await expect(vetUrl(url, strict)).resolves.toMatchObject({ addresses: [{ address: '93.184.216.34' }] });
  });

  it.each([
    ['https://hooks.example:22/', 22],
    ['https://hooks.example:80/', 80],
    ['https://hooks.example:1/', 1],
    ['https://hooks.example:1023/', 1023],
  ])('refuses %s before resolving it', async (url, port) => {
    let asked = false;
    const resolve: Resolver = async () => ((asked = true), [{ address: '93.184.216.34', family: 4 }]);
    await expect(vetUrl(url, { allowPrivate: false, resolve })).rejects.toThrow(
      `port ${port} is not allowed: use 443 or 1024–65535`,
    );
    expect(asked).toBe(false);
  });

  it('lets private http receivers on any port through only when WEBHOOK_ALLOW_PRIVATE_URLS is set', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 as const }];
    await expect(vetUrl('http://localhost:9999/hook', { allowPrivate: false, resolve })).rejects.toThrow(
      'must use https',
    );
    await expect(vetUrl('https://localhost:9999/hook', { allowPrivate: false, resolve })).rejects.toThrow('127.0.0.1');
    await expect(vetUrl('http://localhost:9999/hook', { allowPrivate: true, resolve })).resolves.toMatchObject({
      addresses: [{ address: '127.0.0.1' }],
    });
    await expect(vetUrl('http://localhost/hook', { allowPrivate: true, resolve })).resolves.toMatchObject({
      url: new URL('http://localhost/hook'),
    });
    await expect(vetUrl('https://[::127.0.0.1]:22/', { allowPrivate: true, resolve })).resolves.toMatchObject({
      addresses: [{ address: '::7f00:1' }],
    });
  });
});
