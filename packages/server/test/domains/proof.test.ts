import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDomainProver, txtLookup } from '../../src/domains/proof.ts';
import { WELL_KNOWN_MAX_BYTES } from '../../src/domains/well-known.ts';
import type { UrlPolicy } from '../../src/webhooks/url-guard.ts';
import { startTxtServer } from './dns-server.ts';

const TOKEN = 'a'.repeat(32);
let dns: Awaited<ReturnType<typeof startTxtServer>>;
let files: Server;
let filesPort: number;
/** What the local web server answers, by host name (the Host header): status and body. */
const pages = new Map<string, { status: number; body: string; location?: string }>();

beforeAll(async () => {
  dns = await startTxtServer();
  files = createServer((req, res) => {
    const page =
      req.url === '/.well-known/attestation-service.txt' ? pages.get(req.headers.host!.split(':')[0]!) : undefined;
    res.writeHead(page?.status ?? 404, page?.location ? { location: page.location } : {});
    res.end(page?.body ?? 'not here');
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesPort = (files.address() as AddressInfo).port;
});
afterAll(async () => {
  await dns?.stop();
  files?.close();
});

// every name is this machine, as a split-horizon resolver might say: only the URL guard stands in the way
const local: UrlPolicy['resolve'] = async () => [{ address: '127.0.0.1', family: 4 }];
const prover = (allowPrivate: boolean) =>
  createDomainProver({
    lookup: txtLookup([dns.server]),
    policy: { allowPrivate, resolve: local },
    wellKnownUrl: (domain) => `http://${domain}:${filesPort}/.well-known/attestation-service.txt`,
  });

describe('domain proofs', () => {
  it('passes by a DNS TXT record at _attestation-service.<domain> holding the token', async () => {
    dns.records.set('_attestation-service.dns-ok.test', ['v=spf1 -all', `attestation-service-verification=${TOKEN}`]);
    const result = await prover(true)('dns-ok.test', TOKEN);
    expect(result.method).toBe('dns');
    expect(result.checks.dns).toBe(
      `_attestation-service.dns-ok.test has the TXT record attestation-service-verification=${TOKEN}`,
    );
  });

  it('refuses a TXT record with another token, and says why each method failed', async () => {
    dns.records.set('_attestation-service.dns-wrong.test', [`attestation-service-verification=${'b'.repeat(32)}`]);
    const result = await prover(true)('dns-wrong.test', TOKEN);
    expect(result).toEqual({
      method: null,
      checks: {
        dns: `_attestation-service.dns-wrong.test has TXT records, but none is attestation-service-verification=${TOKEN}`,
        wellKnown: `http://dns-wrong.test:${filesPort}/.well-known/attestation-service.txt answered 404`,
      },
    });
  });

  it('passes by the /.well-known/ file holding the token; a file with another token does not', async () => {
    pages.set('file-ok.test', { status: 200, body: `${TOKEN}\n` });
    const passed = await prover(true)('file-ok.test', TOKEN);
    expect(passed.method).toBe('well-known');
    expect(passed.checks.dns).toBe('_attestation-service.file-ok.test has no TXT record');

    pages.set('file-wrong.test', { status: 200, body: 'b'.repeat(32) });
    const refused = await prover(true)('file-wrong.test', TOKEN);
    expect(refused.method).toBeNull();
    expect(refused.checks.wellKnown).toMatch(/does not hold this domain's token$/);
  });

  it('follows no redirect and reads no more than the size cap', async () => {
    pages.set('moved.test', { status: 302, body: TOKEN, location: 'http://file-ok.test/' });
    expect((await prover(true)('moved.test', TOKEN)).checks.wellKnown).toMatch(
      /answered 302 \(redirects are not followed\)$/,
    );
    pages.set('large.test', { status: 200, body: `${TOKEN}${' '.repeat(WELL_KNOWN_MAX_BYTES)}` });
    const large = await prover(true)('large.test', TOKEN);
    expect([large.method, large.checks.wellKnown]).toEqual([null, expect.stringMatching(/is larger than 1024 bytes/)]);
  });

  it('fetches the file through the SSRF guard: a private address is refused unless private URLs are allowed', async () => {
    pages.set('inside.test', { status: 200, body: TOKEN });
    const guarded = await prover(false)('inside.test', TOKEN);
    expect(guarded.method).toBeNull();
    expect(guarded.checks.wellKnown).toMatch(/must use https/);
    // https as a deployment has it: the address is judged before anything connects
    const https = createDomainProver({
      lookup: txtLookup([dns.server]),
      policy: { allowPrivate: false, resolve: local },
    });
    expect((await https('inside.test', TOKEN)).checks.wellKnown).toBe(
      'https://inside.test/.well-known/attestation-service.txt resolves to 127.0.0.1, a loopback address; receivers must be public',
    );
  });
});
