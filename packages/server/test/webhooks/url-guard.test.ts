import { describe, expect, it } from 'vitest';
import { isPublicAddress, vetUrl } from '../../src/webhooks/url-guard.ts';

describe('receiver address guard', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1', '::', '::1', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::10.0.0.1', '2002:c0a8:0101::1', 'not-an-ip',
  ])('blocks %s', (address) => expect(isPublicAddress(address)).toBe(false));

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34'])('allows %s', (address) =>
    expect(isPublicAddress(address)).toBe(true),
  );

  it('lets private http receivers through only when WEBHOOK_ALLOW_PRIVATE_URLS is set', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 as const }];
    await expect(vetUrl('http://localhost:9999/hook', { allowPrivate: false, resolve })).rejects.toThrow('must use https');
    await expect(vetUrl('https://localhost:9999/hook', { allowPrivate: false, resolve })).rejects.toThrow('127.0.0.1');
    await expect(vetUrl('http://localhost:9999/hook', { allowPrivate: true, resolve })).resolves.toMatchObject({ addresses: [{ address: '127.0.0.1' }] });
  });
});
