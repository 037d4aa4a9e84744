import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, randomIp, startTestService, type TestService } from '../support/service.ts';
import { startPrism, type Prism } from '../support/prism.ts';
import { newCustomer, nonceOf, signOnchain } from '../attesters/support.ts';
import { exampleBody, urlOf } from './openapi-requests.ts';
import { prismCalls } from './prism-calls.ts';

/**
 * Every operation of /openapi.json through Stoplight Prism in front of the live API, which checks each request and
 * response against the document. `strict` runs with --errors: a document-valid request is forwarded and any
 * response violation becomes Prism's own error. `lenient` forwards everything (requests the document rejects,
 * such as a missing key, reach our API), and we read its sl-violations header for response violations only.
 */
let svc: TestService;
let strict: Prism;
let lenient: Prism;
let receiver: Server;
let receiverUrl: string;
let doc: any;

const sha = (text: string) => `0x${createHash('sha256').update(text).digest('hex')}`;
const unknownKey = `svc_free_${'0'.repeat(12)}_${'0'.repeat(32)}`;
const unknownUid = `0x${'0'.repeat(63)}1`;

beforeAll(async () => {
  receiver = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  svc = await startTestService({ worker: true, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  doc = (await call(svc.url, 'GET', '/openapi.json')).body;
  [strict, lenient] = await Promise.all([
    startPrism(doc, svc.url, { errors: true }),
    startPrism(doc, svc.url, { errors: false }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([strict?.stop(), lenient?.stop()]);
  await svc?.stop();
  receiver?.close();
});

const { through, rejected, exercised } = prismCalls(() => ({ doc, strict, lenient }));

const create = (key: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  through('POST', '/v1/attestations', 201, {
    key,
    body: { type: 'human', contentType: 'text/plain', ...body },
    headers,
  });

describe('the API behind Prism (prism proxy --errors)', () => {
  it('answers every attestation operation as documented, success and errors', async () => {
    const { key } = await svc.createKey('pro');
    const onchain = (await create(key, { content: `prism ${Math.random()}` })).body;
    const offchain = (await create(key, { contentHash: sha(`off ${Math.random()}`), mode: 'offchain' })).body;
    const idempotent = { 'Idempotency-Key': `prism-${randomUUID()}` };
    await create(key, { content: 'once', mode: 'offchain' }, idempotent);
    expect(
      (await create(key, { content: 'once', mode: 'offchain' }, idempotent)).headers.get('idempotent-replayed'),
    ).toBe('true');
    await through('POST', '/v1/attestations', 409, {
      key,
      body: { type: 'ai', content: 'twice', contentType: 'text/plain', mode: 'offchain' },
      headers: idempotent,
    });
    const items = [
      { type: 'ai', content: `batch ${Math.random()}`, contentType: 'text/plain' },
      { type: 'human', contentHash: sha('b'), contentType: 'image/png', mode: 'offchain' },
    ];
    await through('POST', '/v1/attestations/batch', 201, { key, body: { attestations: items } });

    await through('GET', `/v1/attestations/${onchain.uid}`, 200);
    await through('GET', `/v1/attestations/${offchain.uid}`, 200, { key });
    await through('GET', `/v1/attestations/${unknownUid}`, 404);
    await through('GET', `/v1/attestations?hash=${sha('b')}&limit=1`, 200);
    await through('GET', `/v1/attestations?hash=${sha('b')}&cursor=bogus`, 400);
    await through('GET', '/v1/attestations?mine=true&type=human&limit=5', 200, { key });
    await through('GET', '/v1/attestations?mine=true', 401);

    // usage, the attestation as a Verifiable Credential, its status list and its keys (their 401s: below)
    await through('GET', '/v1/usage', 200, { key });
    await through('GET', `/v1/attestations/${offchain.uid}/credential`, 200);
    await through('GET', `/v1/attestations/${unknownUid}/credential`, 404);
    await through('GET', '/v1/status-lists/0', 200);
    await through('GET', '/v1/status-lists/999999999', 404);
    await through('GET', '/.well-known/jwks.json', 200);
    await through('GET', '/.well-known/did.json', 200);

    // provenance: a claim deriving from the on-chain one; promotion of the off-chain one, alone and in a batch
    const derived = (await create(key, { content: `derived ${Math.random()}`, refUid: onchain.uid })).body;
    await through('GET', `/v1/attestations/${derived.uid}/provenance`, 200);
    await through('GET', `/v1/attestations/${unknownUid}/provenance`, 404);
    await through('POST', `/v1/attestations/${offchain.uid}/onchain`, 200, { key });
    await through('POST', `/v1/attestations/${onchain.uid}/onchain`, 409, { key });
    const another = (await create(key, { contentHash: sha(`again ${Math.random()}`), mode: 'offchain' })).body;
    await through('POST', '/v1/attestations/onchain', 200, { key, body: { uids: [another.uid] } });

    const { key: stranger } = await svc.createKey();
    await through('POST', `/v1/attestations/${offchain.uid}/onchain`, 403, { key: stranger });
    await through('POST', `/v1/attestations/${onchain.uid}/revoke`, 403, { key: stranger });
    await through('POST', `/v1/attestations/${onchain.uid}/revoke`, 200, { key });
    await through('POST', `/v1/attestations/${onchain.uid}/revoke`, 409, { key, body: { reason: 'again' } });
    await through('POST', `/v1/attestations/${unknownUid}/revoke`, 404, { key });

    const { key: spent, prefix } = await svc.createKey('free');
    await svc.chargeQuota(prefix, 20);
    await through('POST', '/v1/attestations', 429, {
      key: spent,
      body: { type: 'ai', content: 'over quota', contentType: 'text/plain' },
    });
  }, 60_000);

  it('answers every webhook operation as documented, deliveries included', async () => {
    const { key } = await svc.createKey();
    const hook = (
      await through('POST', '/v1/webhooks', 201, { key, body: { url: receiverUrl, events: ['attestation.created'] } })
    ).body;
    await through('POST', '/v1/webhooks', 400, {
      key,
      body: { url: 'ftp://hooks.example.com/x', events: ['attestation.created'] },
    });
    await create(key, { content: `hooked ${Math.random()}`, mode: 'offchain' });
    await through('GET', '/v1/webhooks', 200, { key });
    let page: any;
    for (let i = 0; i < 50 && !page?.data[0]?.attemptLog.length; i++) {
      page = (await through('GET', `/v1/webhooks/${hook.id}/deliveries?limit=5`, 200, { key })).body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(page.data[0].attemptLog.length).toBeGreaterThan(0);
    await through('GET', `/v1/webhooks/${hook.id}/deliveries?cursor=bogus`, 400, { key });
    await through('GET', `/v1/webhooks/${randomUUID()}/deliveries`, 404, { key });
    await through('POST', `/v1/webhooks/${hook.id}/rotate-secret`, 200, { key, body: { previousSecretTtlHours: 1 } });
    await through('POST', `/v1/webhooks/${randomUUID()}/rotate-secret`, 404, { key, body: {} });
    await through('POST', `/v1/webhooks/${hook.id}/test`, 202, { key });
    await through('POST', `/v1/webhooks/${randomUUID()}/test`, 404, { key });
    await through('DELETE', `/v1/webhooks/${hook.id}`, 204, { key });
    await through('DELETE', `/v1/webhooks/${hook.id}`, 404, { key });
  }, 30_000);

  it('answers every attester operation as documented, a signed create included', async () => {
    const { key } = await svc.createKey('pro');
    const customer = newCustomer();
    const challenge = (
      await through('POST', '/v1/attesters/challenges', 201, { key, body: { address: customer.address } })
    ).body;
    await through('POST', '/v1/attesters', 400, {
      key,
      body: { challengeId: randomUUID(), signature: await customer.signMessage({ message: challenge.message }) },
    });
    const signature = await customer.signMessage({ message: challenge.message });
    await through('POST', '/v1/attesters', 201, { key, body: { challengeId: challenge.id, signature } });
    const { key: other } = await svc.createKey();
    await through('POST', '/v1/attesters/challenges', 409, { key: other, body: { address: customer.address } });
    await through('GET', '/v1/attesters', 200, { key });
    await through('GET', `/v1/attesters/${customer.address}/nonce`, 200, { key });
    await through('GET', `/v1/attesters/${customer.address}/nonce`, 404, { key: other });
    const { nonce, signing } = await nonceOf(svc.url, key, customer.address);
    const contentHash = sha(`signed ${Math.random()}`) as `0x${string}`;
    const delegation = await signOnchain(customer, signing, { type: 'human', contentHash, nonce, deadline: '0' });
    const body = { type: 'human', contentHash, contentType: 'text/plain', delegation };
    await through('POST', '/v1/attestations', 201, { key, body });
    await through('POST', '/v1/attestations', 409, { key, body });
    const forged = { ...delegation, nonce: String(BigInt(nonce) + 1n) };
    await through('POST', '/v1/attestations', 400, { key, body: { ...body, delegation: forged } });
    await through('DELETE', `/v1/attesters/${customer.address}`, 204, { key });
    await through('DELETE', `/v1/attesters/${customer.address}`, 404, { key });
    await through('POST', '/v1/attestations', 403, { key, body });
  }, 60_000);

  it('streams the audit export as documented, JSON and CSV', async () => {
    const { key } = await svc.createKey();
    await create(key, { content: `audited ${Math.random()}`, mode: 'offchain' });
    const json = await through('GET', '/v1/audit/export?format=json', 200, { key });
    expect(json.body.length).toBeGreaterThan(0);
    const csv = await through('GET', '/v1/audit/export', 200, { key, headers: { accept: 'text/csv' } });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    await through('GET', '/v1/audit/export?format=csv&action=attestation.created', 200, { key });
    await through('GET', '/v1/audit/export?from=2025-02-01&to=2025-01-01', 400, { key });
    await through('GET', '/v1/audit/export', 406, { key, headers: { accept: 'image/png' } });
  });

  it('answers the probes as documented', async () => {
    await through('GET', '/healthz', 200);
    await through('GET', '/readyz', 200);
    await through('GET', '/healthz?verbose=1', 400);
    await through('GET', '/readyz?verbose=1', 400);
  });

  it('answers a key that is not valid, or revoked, with a documented 401 and its challenge on every gated operation', async () => {
    const revoked = await svc.createKey();
    await svc.services.keys.revoke(revoked.prefix);
    for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!op.security?.some((s: object) => 'bearerAuth' in s)) continue;
        const concrete = urlOf(path, op);
        for (const key of [unknownKey, revoked.key]) {
          const res = await through(method.toUpperCase(), concrete, 401, {
            key,
            body: exampleBody(op),
            headers: { 'x-forwarded-for': randomIp() },
          });
          expect(res.headers.get('www-authenticate')).toBe('Bearer realm="attestation-service", error="invalid_token"');
        }
      }
    }
  });

  it('answers a free key over its rate limit with a documented 429', async () => {
    const { key } = await svc.createKey('free');
    let last: number | undefined;
    for (let i = 0; i < 31; i++) last = (await call(strict.url, 'GET', '/v1/webhooks', { key })).status;
    expect(last).toBe(429);
    const res = await through('GET', '/v1/webhooks', 429, { key });
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('answers requests the document rejects with documented errors (Prism refuses them under --errors)', async () => {
    const { key } = await svc.createKey();
    for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const method of Object.keys(methods)) {
        const security = methods[method].security ?? [];
        if (security.length === 0 || !security.every((s: object) => 'bearerAuth' in s)) continue;
        const concrete = urlOf(path, methods[method]);
        const res = await rejected(method.toUpperCase(), concrete, 401, { body: exampleBody(methods[method]) });
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="attestation-service"');
      }
    }
    await rejected('POST', '/v1/attestations', 400, { key, body: { type: 'human', contentType: 'text/plain' } });
    await rejected('POST', '/v1/attestations', 400, {
      key,
      body: { type: 'human', content: 'x', contentHash: sha('x'), contentType: 'text/plain' },
    });
    await rejected('POST', '/v1/attestations/batch', 400, { key, body: { attestations: [] } });
    await rejected('POST', '/v1/attestations/onchain', 400, { key, body: { uids: [] } });
    await rejected('POST', '/v1/attestations', 415, {
      key,
      rawBody: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    await rejected('GET', '/v1/attestations/0x12', 400);
    await rejected('GET', '/v1/attestations/0x12/credential', 400);
    await rejected('GET', '/v1/status-lists/01', 400);
    await rejected('GET', '/v1/attestations?limit=0', 400);
    await rejected('POST', `/v1/attestations/${unknownUid}/revoke`, 400, { key, body: { reason: 'x'.repeat(501) } });
    await rejected('POST', '/v1/webhooks', 400, { key, body: { url: receiverUrl, events: [] } });
    await rejected('GET', `/v1/webhooks/${randomUUID()}/deliveries?limit=101`, 400, { key });
    await rejected('POST', `/v1/webhooks/${randomUUID()}/rotate-secret`, 400, {
      key,
      body: { previousSecretTtlHours: 169 },
    });
    await rejected('GET', '/v1/audit/export?from=yesterday', 400, { key });
  });

  it('has exercised every operation of the document, with a success and an error', () => {
    for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const method of Object.keys(methods)) {
        const statuses = [...(exercised.get(`${method} ${path}`) ?? [])];
        expect(
          statuses.some((s) => s < 300),
          `${method} ${path}: ${statuses}`,
        ).toBe(true);
        expect(
          statuses.some((s) => s >= 400),
          `${method} ${path}: ${statuses}`,
        ).toBe(true);
      }
    }
  });
});
