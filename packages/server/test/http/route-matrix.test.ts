// The security matrix, derived from the router: every REST route that collectRoutes finds gets a happy case, an
// auth case and a validation case. CASES holds one valid and one invalid input per procedure, and must cover every
// route: a new route without an entry fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../src/router.ts';
import { collectRoutes, type Route } from '../../src/http/routes.ts';
import { call, startTestService, type TestService } from '../support/service.ts';
import { newCustomer, register } from '../attesters/support.ts';

let svc: TestService;

beforeAll(async () => {
  // subscriptions point at a closed loopback port: the worker's deliveries never leave the machine
  svc = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
});
afterAll(() => svc?.stop());

const routes = collectRoutes(appRouter);
const SPEC_BODY = { code: expect.any(String), message: expect.any(String), details: expect.any(Object) };
const offchain = () => ({
  type: 'human',
  content: `matrix ${Math.random()}`,
  contentType: 'text/plain',
  mode: 'offchain',
});
const hook = { url: 'http://127.0.0.1:9/hook', events: ['attestation.revoked'] };

/** What one call sends: path parameters, query parameters, a JSON body. */
interface Input {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

/** A route's inputs: a valid one (made on the caller's own data, with its key) and one the route refuses with 400. */
interface RouteCase {
  valid(key: string): Promise<Input>;
  invalid: Input;
}

async function attestation(key: string): Promise<string> {
  const res = await call(svc.url, 'POST', '/v1/attestations', { key, body: offchain() });
  expect(res.status).toBe(201);
  return res.body.uid;
}

async function subscription(key: string): Promise<string> {
  const res = await call(svc.url, 'POST', '/v1/webhooks', { key, body: hook });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** An address registered to the key's account. */
async function attester(key: string): Promise<string> {
  const customer = newCustomer();
  expect((await register(svc.url, key, customer)).status).toBe(201);
  return customer.address;
}

/** A challenge for a fresh address, signed by it: a valid registration body. */
async function signedChallenge(key: string) {
  const customer = newCustomer();
  const res = await call(svc.url, 'POST', '/v1/attesters/challenges', { key, body: { address: customer.address } });
  return { challengeId: res.body.id, signature: await customer.signMessage({ message: res.body.message }) };
}

const CASES: Record<string, RouteCase> = {
  'attesters.challenge': {
    valid: async () => ({ body: { address: newCustomer().address } }),
    invalid: { body: { address: '0x12' } },
  },
  'attesters.register': {
    valid: async (key) => ({ body: await signedChallenge(key) }),
    invalid: { body: { challengeId: 'nope', signature: `0x${'ab'.repeat(65)}` } },
  },
  'attesters.list': { valid: async () => ({}), invalid: { query: { unknown: '1' } } },
  'attesters.nonce': {
    valid: async (key) => ({ params: { address: await attester(key) } }),
    invalid: { params: { address: 'not-an-address' } },
  },
  'attesters.remove': {
    valid: async (key) => ({ params: { address: await attester(key) } }),
    invalid: { params: { address: '0x1' } },
  },
  'attestations.create': {
    valid: async () => ({ body: offchain() }),
    invalid: { body: { ...offchain(), type: 'robot' } },
  },
  'attestations.batch': {
    valid: async () => ({ body: { attestations: [offchain(), offchain()] } }),
    invalid: { body: { attestations: [] } },
  },
  'attestations.get': {
    valid: async (key) => ({ params: { uid: await attestation(key) } }),
    invalid: { params: { uid: '0x1234' } },
  },
  'attestations.search': {
    valid: async () => ({ query: { hash: 'ab'.repeat(32) } }),
    invalid: { query: { hash: 'not-a-hash' } },
  },
  'attestations.revoke': {
    valid: async (key) => ({ params: { uid: await attestation(key) }, body: { reason: 'matrix' } }),
    invalid: { params: { uid: 'nope' } },
  },
  'attestations.provenance': {
    valid: async (key) => ({ params: { uid: await attestation(key) } }),
    invalid: { params: { uid: '0x1234' } },
  },
  'attestations.promote': {
    valid: async (key) => ({ params: { uid: await attestation(key) } }),
    invalid: { params: { uid: 'nope' } },
  },
  'attestations.promoteBatch': {
    valid: async (key) => ({ body: { uids: [await attestation(key)] } }),
    invalid: { body: { uids: [] } },
  },
  'webhooks.create': { valid: async () => ({ body: hook }), invalid: { body: { ...hook, events: [] } } },
  'webhooks.list': { valid: async () => ({}), invalid: { query: { unknown: '1' } } },
  'webhooks.delete': {
    valid: async (key) => ({ params: { id: await subscription(key) } }),
    invalid: { params: { id: 'x'.repeat(65) } },
  },
  'webhooks.deliveries': {
    valid: async (key) => ({ params: { id: await subscription(key) } }),
    invalid: { params: { id: 'wh' }, query: { limit: '0' } },
  },
  'webhooks.rotateSecret': {
    valid: async (key) => ({ params: { id: await subscription(key) }, body: { previousSecretTtlHours: 1 } }),
    invalid: { params: { id: 'wh' }, body: { previousSecretTtlHours: 169 } },
  },
  'webhooks.sendTest': {
    valid: async (key) => ({ params: { id: await subscription(key) }, body: {} }),
    invalid: { params: { id: 'wh' }, body: { extra: true } },
  },
  'credentials.get': {
    valid: async (key) => ({ params: { uid: await attestation(key) } }),
    invalid: { params: { uid: '0x1234' } },
  },
  'credentials.statusList': {
    // list 0 holds the first 131,072 attestations: one made now makes sure it exists
    valid: async (key) => ({ params: { list: (await attestation(key)) && '0' } }),
    invalid: { params: { list: '-1' } },
  },
  'usage.get': { valid: async () => ({}), invalid: { query: { unknown: '1' } } },
  'credentials.jwks': { valid: async () => ({}), invalid: { query: { unknown: '1' } } },
  'credentials.did': { valid: async () => ({}), invalid: { query: { unknown: '1' } } },
  'audit.export': { valid: async () => ({ query: { format: 'json' } }), invalid: { query: { format: 'xml' } } },
  'system.health': { valid: async () => ({}), invalid: { query: { unknown: '1' } } },
  'system.ready': { valid: async () => ({}), invalid: { query: { unknown: '1' } } },
};

/** Sends `input` to `route`, with `key` when given (a string: also a bad one). */
function send(route: Route, input: Input, key?: string) {
  let path = route.path;
  for (const [name, value] of Object.entries(input.params ?? {}))
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  const query = new URLSearchParams(input.query).toString();
  const body = route.method === 'GET' ? undefined : (input.body ?? {});
  return call(svc.url, route.method, query ? `${path}?${query}` : path, { key, body });
}

const kind = (route: Route) => (route.probe ? 'probe' : route.protect ? 'gated' : 'public');
const BAD_KEY = `svc_pro_${'0'.repeat(12)}_${'0'.repeat(32)}`;

describe('the route matrix', () => {
  it('has a case for every route the router declares, and none for a route it does not', () => {
    expect(Object.keys(CASES).sort()).toEqual(routes.map((route) => route.procedure).sort());
  });

  describe.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_, route) => {
    const cases = () => CASES[route.procedure]!;

    it(`happy: a valid call answers ${route.successStatus}`, async () => {
      const { key } = await svc.createKey('enterprise');
      const res = await send(route, await cases().valid(key), key);
      expect(res.status, JSON.stringify(res.body)).toBe(route.successStatus);
      if (route.successStatus === 204) expect(res.body).toBeUndefined();
      else if (res.headers.get('content-type') === 'application/vc+jwt')
        expect(res.body).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/); // a credential: a compact JWS
      else expect(res.body).toEqual(expect.any(Object));
    }, 30_000);

    it('auth: gated routes answer 401 without a key and with a bad one; public routes answer without', async () => {
      const { key } = await svc.createKey('enterprise');
      const input = await cases().valid(key);
      const anonymous = await send(route, input);
      const badKey = await send(route, input, BAD_KEY);
      if (kind(route) === 'gated') {
        expect(anonymous).toMatchObject({ status: 401, body: { ...SPEC_BODY, code: 'MISSING_API_KEY' } });
        expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="attestation-service"');
      } else {
        expect(anonymous.status, JSON.stringify(anonymous.body)).toBe(route.successStatus);
      }
      // a public read never falls back to the anonymous limit on a bad key; a probe never reads one
      if (kind(route) === 'probe') expect(badKey.status).toBe(route.successStatus);
      else expect(badKey).toMatchObject({ status: 401, body: { ...SPEC_BODY, code: 'INVALID_API_KEY' } });
    }, 30_000);

    it('validation: an invalid input is 400 VALIDATION_FAILED naming the problem', async () => {
      const { key } = await svc.createKey('enterprise');
      const res = await send(route, cases().invalid, route.protect ? key : undefined);
      expect(res).toMatchObject({
        status: 400,
        body: {
          ...SPEC_BODY,
          code: 'VALIDATION_FAILED',
          details: { errors: [expect.objectContaining({ path: expect.any(String), message: expect.any(String) })] },
        },
      });
    }, 30_000);
  });
});
