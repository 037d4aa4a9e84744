// The operator's `webhooks rotate-secret` and `webhooks test`: the new secret printed once, the previous one still
// signing for --keep hours, a test event delivered signed, arguments checked before the database is opened.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import '../support/provided.ts';
import { runCli } from '../support/cli.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, fundedKey, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let env: NodeJS.ProcessEnv;
let receiver: Receiver;

beforeAll(async () => {
  svc = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  receiver = await startReceiver();
  env = {
    ...process.env,
    DATABASE_URL: svc.databaseUrl,
    CHAIN_RPC_URL: svc.chain.rpcUrl,
    EAS_ADDRESS: svc.chain.eas,
    SCHEMA_REGISTRY_ADDRESS: inject('chain').schemaRegistry,
    RELAYER_PRIVATE_KEY: await fundedKey(svc.chain.rpcUrl),
    LOG_LEVEL: 'warn',
  };
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
});

const cli = (...args: string[]) => runCli(env, ...args);

describe('webhooks rotate-secret / test (CLI)', () => {
  it('prints the new secret once, keeps the previous one signing, and sends a test event both verify', async () => {
    const { key } = await svc.createKey('pro');
    const created = await call(svc.url, 'POST', '/v1/webhooks', {
      key,
      body: { url: receiver.url, events: ['attestation.created'] },
    });
    const old = created.body as { id: string; secret: string; standardWebhooksSecret: string };

    const rotated = await cli('webhooks', 'rotate-secret', old.id, '--keep', '2', '--json');
    expect(rotated.code).toBe(0);
    const fresh = JSON.parse(rotated.stdout) as { secret: string; standardWebhooksSecret: string; rotation: unknown };
    expect(fresh).toMatchObject({ id: old.id, rotation: { previousSecretExpiresAt: expect.any(String) } });
    const listed = await call(svc.url, 'GET', '/v1/webhooks', { key });
    expect(listed.body.data[0].rotation).toEqual(fresh.rotation);

    const sent = await cli('webhooks', 'test', old.id);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/^queued webhook\.test for .*: delivery [0-9a-f-]{36}\n$/);
    const [request] = await receiver.waitFor(1);
    const headers = request!.headers as Record<string, string>;
    for (const secret of [old.standardWebhooksSecret, fresh.standardWebhooksSecret])
      expect(new Webhook(secret).verify(request!.body, headers)).toMatchObject({ type: 'webhook.test' });

    const audit = await svc.db
      .selectFrom('auditEntries')
      .select(['action', 'actorKeyPrefix'])
      .where('resource', '=', `webhook:${old.id}`)
      .orderBy('id')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['webhook.subscribed', 'webhook.secret_rotated', 'webhook.test_sent']);
    expect(audit[1]!.actorKeyPrefix).toBeNull();

    const text = await cli('webhooks', 'rotate-secret', old.id, '--keep', '0');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^new secret \(shown once\): [0-9a-f]{64}\nStandard Webhooks form: +whsec_/);
    expect(text.stdout).toMatch(/the previous secret is retired\n$/);
  });

  it('refuses bad arguments (exit 2) and an unknown subscription (exit 1)', async () => {
    expect((await cli('webhooks', 'rotate-secret')).code).toBe(2);
    expect((await cli('webhooks', 'spin', '00000000-0000-0000-0000-000000000000')).code).toBe(2);
    const long = await cli('webhooks', 'rotate-secret', '00000000-0000-0000-0000-000000000000', '--keep', '999');
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/--keep must be a whole number of hours, 0–168/);
    const unknown = await cli('webhooks', 'test', '00000000-0000-0000-0000-000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('no live subscription 00000000-0000-0000-0000-000000000000');
  });
});
