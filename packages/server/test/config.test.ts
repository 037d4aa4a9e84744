import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

const verifyBaseUrl = (env: Record<string, string>) => loadConfig(env).verifyBaseUrl;

describe('VERIFY_BASE_URL', () => {
  it('defaults to localhost on VERIFY_PORT, so verifyUrl links reach the app where it listens', () => {
    expect(verifyBaseUrl({})).toBe('http://localhost:8081');
    expect(verifyBaseUrl({ VERIFY_PORT: '18481' })).toBe('http://localhost:18481');
  });

  it('names localhost for the loopback and wildcard addresses', () => {
    for (const HOST of ['127.0.0.1', '0.0.0.0', '::'])
      expect(verifyBaseUrl({ HOST, VERIFY_PORT: '9001' })).toBe('http://localhost:9001');
  });

  it('names any other HOST, an IPv6 one in brackets', () => {
    expect(verifyBaseUrl({ HOST: 'verify.internal', VERIFY_PORT: '9001' })).toBe('http://verify.internal:9001');
    expect(verifyBaseUrl({ HOST: '192.0.2.10' })).toBe('http://192.0.2.10:8081');
    expect(verifyBaseUrl({ HOST: '::1', VERIFY_PORT: '9001' })).toBe('http://[::1]:9001');
    expect(verifyBaseUrl({ HOST: 'fd00::7' })).toBe('http://[fd00::7]:8081');
  });

  it('an explicit VERIFY_BASE_URL wins over the port and host, without its trailing slash', () => {
    expect(
      verifyBaseUrl({ VERIFY_BASE_URL: 'https://verify.example.com/', VERIFY_PORT: '9001', HOST: '0.0.0.0' }),
    ).toBe('https://verify.example.com');
  });

  it('an empty VERIFY_BASE_URL counts as unset', () => {
    expect(verifyBaseUrl({ VERIFY_BASE_URL: '', VERIFY_PORT: '9002' })).toBe('http://localhost:9002');
  });

  it('refuses a VERIFY_BASE_URL that is not an http(s) URL, naming it', () => {
    expect(() => loadConfig({ VERIFY_BASE_URL: 'ftp://verify.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ VERIFY_BASE_URL: 'ftp://verify.example.com' })).toThrow(/VERIFY_BASE_URL/);
  });
});

describe('ANCHOR_INTERVAL', () => {
  it('is a minute by default, any duration when set, and 0 turns anchoring off', () => {
    expect(loadConfig({}).anchorIntervalMs).toBe(60_000);
    expect(loadConfig({ ANCHOR_INTERVAL: '90s' }).anchorIntervalMs).toBe(90_000);
    expect(loadConfig({ ANCHOR_INTERVAL: '5m' }).anchorIntervalMs).toBe(300_000);
    expect(loadConfig({ ANCHOR_INTERVAL: '0' }).anchorIntervalMs).toBe(0);
  });

  it('refuses anything else, naming it', () => {
    for (const ANCHOR_INTERVAL of ['soon', '60', '-1s', '1d'])
      expect(() => loadConfig({ ANCHOR_INTERVAL }), ANCHOR_INTERVAL).toThrow(
        /ANCHOR_INTERVAL must be 0 \(off\) or a duration/,
      );
  });
});

describe('.env.example', () => {
  const root = join(import.meta.dirname, '../../..');
  const example = readFileSync(join(root, '.env.example'), 'utf8');

  it('names every variable the configuration reads', () => {
    const source = readFileSync(join(import.meta.dirname, '../src/config-schema.ts'), 'utf8');
    const variables = [...source.matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]!);
    expect(variables.length).toBeGreaterThan(20);
    for (const name of variables) expect(example, name).toMatch(new RegExp(`^(# )?${name}=`, 'm'));
  });

  it('gives the defaults for the lines it leaves active: loading them changes nothing', () => {
    const active = parseEnv(example);
    expect(Object.keys(active).length).toBeGreaterThan(10);
    expect(loadConfig(active)).toEqual(loadConfig({}));
  });
});

describe('TRUST_PROXY', () => {
  it('is a number of proxies in front; true is one and false none, as when it was a flag', () => {
    const hops = (TRUST_PROXY?: string) => loadConfig(TRUST_PROXY === undefined ? {} : { TRUST_PROXY }).trustProxy;
    expect([hops(), hops('0'), hops('false'), hops('no')]).toEqual([0, 0, 0, 0]);
    expect([hops('1'), hops('true'), hops('yes')]).toEqual([1, 1, 1]);
    expect(hops('2')).toBe(2);
  });

  it('refuses anything else, naming it', () => {
    for (const TRUST_PROXY of ['-1', 'on', '10.0.0.0/8', '1.5'])
      expect(() => loadConfig({ TRUST_PROXY })).toThrow(/TRUST_PROXY/);
  });
});

describe('CHAIN_RPC_URL, CHAIN_ID and the relayer signer', () => {
  it('CHAIN_RPC_URL takes a comma-separated list, spaces allowed, the first one preferred', () => {
    const { chain } = loadConfig({ CHAIN_RPC_URL: 'https://a.example/v2/k1, https://b.example ,wss://c.example/ws' });
    expect(chain.rpcUrls).toEqual(['https://a.example/v2/k1', 'https://b.example', 'wss://c.example/ws']);
    expect(chain.rpcUrl).toBe('https://a.example/v2/k1');
    expect(loadConfig({}).chain.rpcUrls).toEqual([]);
  });

  it('refuses a list with a malformed URL, an empty entry or the same URL twice, naming CHAIN_RPC_URL', () => {
    for (const CHAIN_RPC_URL of ['https://a.example,ftp://b.example', 'https://a.example,', 'not a url'])
      expect(() => loadConfig({ CHAIN_RPC_URL }), CHAIN_RPC_URL).toThrow(
        'invalid configuration: CHAIN_RPC_URL must be a comma-separated list of http(s) or ws(s) URLs',
      );
    expect(() => loadConfig({ CHAIN_RPC_URL: 'https://a.example,https://a.example' })).toThrow(
      'CHAIN_RPC_URL lists the same URL twice',
    );
  });

  it('CHAIN_ID is a positive integer', () => {
    expect(loadConfig({ CHAIN_ID: '8453' }).chain.chainId).toBe(8453);
    expect(loadConfig({}).chain.chainId).toBeUndefined();
    for (const CHAIN_ID of ['0', '-1', 'base', '1.5'])
      expect(() => loadConfig({ CHAIN_ID }), CHAIN_ID).toThrow('CHAIN_ID must be a chain id (a positive integer)');
  });

  it('refuses RELAYER_PRIVATE_KEY and RELAYER_SIGNER_URL together', () => {
    expect(() =>
      loadConfig({ RELAYER_PRIVATE_KEY: `0x${'11'.repeat(32)}`, RELAYER_SIGNER_URL: 'http://signer.internal:9000' }),
    ).toThrow('invalid configuration: RELAYER_PRIVATE_KEY and RELAYER_SIGNER_URL are both set; set one');
  });

  it('a signer URL, with RELAYER_ADDRESS, is the signer; RELAYER_ADDRESS is what serve --verify trusts by default', () => {
    const address = '0x1111111111111111111111111111111111111111';
    const config = loadConfig({ RELAYER_SIGNER_URL: 'http://signer.internal:9000', RELAYER_ADDRESS: address });
    expect(config.chain.signer).toEqual({ kind: 'remote', url: 'http://signer.internal:9000', address });
    expect(config.verify.attester).toBe(address);
    expect(loadConfig({}).chain.signer).toEqual({ kind: 'key', given: false, address: undefined });
    expect(() => loadConfig({ RELAYER_ADDRESS: '0x12' })).toThrow('RELAYER_ADDRESS must be 0x followed by 40 hex');
  });
});
