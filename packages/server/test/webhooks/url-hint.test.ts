import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { Secret } from '../../src/config.ts';
import { AppError } from '../../src/errors.ts';
import { webhookSecrets } from '../../src/webhooks/secret-seal.ts';
import { createWebhookService, LOCAL_RECEIVER_HINT } from '../../src/webhooks/service.ts';
import { vetLoopbackUrl, type Resolver } from '../../src/webhooks/url-guard.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
}, 60_000);
afterAll(() => svc?.stop());

const events = ['attestation.created' as const];
const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];

/** The subscribe use case as the API and the dashboard call it, in development or not. */
async function refusal(url: string, development: boolean): Promise<AppError> {
  const service = createWebhookService({
    db: svc.infrastructure.db,
    clock: systemClock,
    policy: { allowPrivate: false, resolve },
    secrets: webhookSecrets({ current: new Secret('a-test-service-secret-of-32-characters'), previous: undefined }),
    development,
  });
  const { account } = await svc.createKey('pro');
  const { id } = await svc.db.selectFrom('accounts').select('id').where('name', '=', account).executeTakeFirstOrThrow();
  const error = await service.create({ accountId: id }, { url, events }, { requestId: 'r', ip: '198.51.100.1' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('refused receiver URLs', () => {
  it.each([
    ['http://127.0.0.1:3000/hook', 'url must use https'],
    ['https://localhost:3000/hook', 'url resolves to 127.0.0.1, a loopback address; receivers must be public'],
  ])('in development, %s names WEBHOOK_ALLOW_PRIVATE_URLS and webhooks listen', async (url, reason) => {
    const error = await refusal(url, true);
    expect([error.errorCode, error.status]).toEqual(['VALIDATION_FAILED', 400]);
    expect(error.message).toBe(
      `${reason} (for a receiver on this machine in development, set WEBHOOK_ALLOW_PRIVATE_URLS=true, ` +
        'or use `attestation-service webhooks listen --forward-to URL`).',
    );
    expect(error.details).toEqual({
      errors: [{ path: 'url', message: `${reason.slice('url '.length)} (${LOCAL_RECEIVER_HINT})` }],
    });
  });

  it('in production, says only what is wrong', async () => {
    const error = await refusal('http://127.0.0.1:3000/hook', false);
    expect(error.message).toBe('url must use https.');
  });

  it('a refusal that no setting lifts (credentials in the URL) carries no hint in development', async () => {
    const error = await refusal('https://user:pass@hooks.example/hook', true);
    expect(error.message).toBe('url must not carry credentials.');
  });

  it('the API of a production service (DATABASE_URL set) answers 400 without naming the setting', async () => {
    const { key } = await svc.createKey('pro');
    const res = await call(svc.url, 'POST', '/v1/webhooks', {
      key,
      body: { url: 'http://127.0.0.1:3000/hook', events },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'url must use https.',
      details: { errors: [{ path: 'url', message: 'must use https' }] },
    });
  });
});

describe('a listen subscription receiver (vetLoopbackUrl)', () => {
  it.each(['http://127.0.0.1:4000/listen', 'http://[::1]:4000/listen', 'http://127.0.0.2:4000/'])('takes %s', (url) =>
    expect(vetLoopbackUrl(url).url.href).toBe(new URL(url).href),
  );

  it.each([
    ['http://10.0.0.1:4000/', 'not a loopback address'],
    ['http://169.254.169.254/latest/meta-data', 'not a loopback address'],
    ['http://[::ffff:127.0.0.1]/', 'not a loopback address'],
    ['http://localhost:4000/', 'is not a listen receiver'],
    ['http://user:pass@127.0.0.1:4000/', 'is not a listen receiver'],
    ['ftp://127.0.0.1/', 'is not a listen receiver'],
  ])('refuses %s', (url, reason) => expect(() => vetLoopbackUrl(url)).toThrow(reason));
});
