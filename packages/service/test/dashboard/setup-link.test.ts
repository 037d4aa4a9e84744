import { describe, expect, inject, it } from 'vitest';
import {
  createTestDatabase,
  freePort,
  fundedKey,
  startCli,
  TEST_SERVICE_SECRET,
} from '@attestation-service/server/testing';

/** Runs `serve --api` until its ready line; returns what it printed and how to stop it. */
async function serve(env: Record<string, string>): Promise<{ stderr: string; stop(): Promise<void> }> {
  const run = await startCli(['serve', '--api'], { PATH: process.env.PATH, ...env });
  if (!run.started) throw new Error(`serve exited with ${await run.ended}:\n${run.stderr()}`);
  return {
    stderr: run.stderr(),
    async stop() {
      run.child.kill('SIGINT');
      await run.ended;
    },
  };
}

const SETUP_LINE = /^Dashboard: (\S+)\/dashboard\/ — first owner: open (\S+) \(one use, valid until (\S+)\)$/m;

describe('serve on a database with no dashboard member', () => {
  it('prints the one-time owner setup link (24 h) before its ready line, and the same link after a restart', async () => {
    const chain = inject('chain');
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: base,
      LOG_LEVEL: 'warn',
      DATABASE_URL: await createTestDatabase(),
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
      SERVICE_SECRET: TEST_SERVICE_SECRET,
    };
    const first = await serve(env);
    await first.stop();
    const [, dashboard, url, until] = SETUP_LINE.exec(first.stderr) ?? [];
    expect(dashboard).toBe(base);
    expect(url).toMatch(new RegExp(`^${base}/dashboard/invite/[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(until!) - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(first.stderr.indexOf('first owner')).toBeLessThan(first.stderr.indexOf('Ctrl-C stops'));

    const second = await serve(env);
    try {
      expect(SETUP_LINE.exec(second.stderr)?.[2]).toBe(url);
      const view = await fetch(
        `${base}/trpc/dashboard.invitations.get?input=${encodeURIComponent(
          JSON.stringify({ token: url!.split('/').pop() }),
        )}`,
      );
      expect(((await view.json()) as { result: { data: unknown } }).result.data).toMatchObject({
        kind: 'setup',
        role: 'owner',
      });
    } finally {
      await second.stop();
    }
  }, 120_000);
});
