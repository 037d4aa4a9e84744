import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { clientNetworkOf } from '../../src/limits/client-network.ts';

describe('the network a client address counts against', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(clientNetworkOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetworkOf('203.0.113.8')).not.toBe(clientNetworkOf('203.0.113.7'));
  });

  it('gives every way of writing an IPv4 address the network ipaddr.js parses it to', () => {
    const octet = () => String(Math.floor(Math.random() * 256));
    const written = [
      ...Array.from({ length: 2000 }, () => [octet(), octet(), octet(), octet()].join('.')),
      '0.0.0.0',
      '255.255.255.255',
      '010.0.0.1', // octal to ipaddr.js: 8.0.0.1
      '1.2.3.04',
      '0x7f.0.0.1',
      '256.1.1.1',
      ' 1.2.3.4',
      '1.2.3.4 ',
      '1.2.3',
      '1.2.3.4.5',
    ];
    for (const address of written) {
      const bare = address.trim();
      const expected = ipaddr.isValid(bare) ? ipaddr.parse(bare).toString() : address;
      expect(clientNetworkOf(address), address).toBe(expected);
    }
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(clientNetworkOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetworkOf('::ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const network = clientNetworkOf('2001:db8:1:2::1');
    expect(network).toBe('2001:db8:1:2::/64');
    expect(clientNetworkOf('2001:DB8:1:2:ffff:ffff:ffff:ffff')).toBe(network);
    expect(clientNetworkOf('2001:db8:1:2:0:0:0:1%eth0')).toBe(network);
    expect(clientNetworkOf('2001:db8:1:3::1')).not.toBe(network);
  });

  it('takes the prefix it is given', () => {
    expect(clientNetworkOf('2001:db8:1:2::1', 48)).toBe(clientNetworkOf('2001:db8:1:ffff::9', 48));
    expect(clientNetworkOf('2001:db8:1:2::1', 56)).not.toBe(clientNetworkOf('2001:db8:1:ffff::9', 56));
    expect(clientNetworkOf('2001:db8::1', 128)).not.toBe(clientNetworkOf('2001:db8::2', 128));
  });

  it('keeps text that is no address as its own bucket', () => {
    expect(clientNetworkOf('unknown')).toBe('unknown');
  });
});
