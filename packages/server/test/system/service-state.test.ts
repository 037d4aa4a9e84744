import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/system/ports.ts';
import type { ServiceState } from '../../src/system/service-state.ts';
import { CLI, runCli } from '../support/cli.ts';

const dataDir = await mkdtemp(join(tmpdir(), 'service-state-'));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
let child: ChildProcess | undefined;

afterAll(async () => {
  child?.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

/** `serve` of everything with the embedded database, chain and mail, as `./dev start` runs it; resolves once up. */
async function serve(port: number): Promise<ChildProcess> {
  const started = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...env, HOST: '127.0.0.1', PORT: String(port), VERIFY_PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  started.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4096)));
  for (const deadline = Date.now() + 90_000; Date.now() < deadline && started.exitCode === null;) {
    if (stderr.includes('Ctrl-C stops')) return started;
    await new Promise((r) => setTimeout(r, 100));
  }
  started.kill('SIGKILL');
  throw new Error(`the service did not start: ${stderr.trim()}`);
}

describe("the running service's state in DATA_DIR", () => {
  it('is written at start (0600, no secret), found by the CLI and doctor, and removed on a clean stop', async () => {
    const port = await freePort();
    child = await serve(port);
    const path = join(dataDir, 'service.json');
    const text = await readFile(path, 'utf8');
    const state = JSON.parse(text) as ServiceState;
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(state).toMatchObject({
      pid: child.pid,
      apiUrl: `http://127.0.0.1:${port}`,
      publicBaseUrl: `http://localhost:${port}`,
      database: { kind: 'embedded', dataDir },
      devChain: { chainId: 31337, rpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) },
    });
    const { password } = JSON.parse(await readFile(join(dataDir, 'postgres.json'), 'utf8')) as { password: string };
    expect(text).not.toContain(password);

    // the CLI, with neither PORT nor the database's URL, uses the service's database and address
    expect(JSON.parse((await runCli(env, 'keys', 'create', '--tier', 'free', '--json')).stdout)).toMatchObject({
      tier: 'free',
    });
    const invite = await runCli(env, 'accounts', 'invite', '--support', '--email', 'o@example.com', '--no-mail');
    expect(invite.stdout).toMatch(new RegExp(`^http://localhost:${port}/dashboard/invite/`));

    const doctor = await runCli(env, 'doctor');
    expect(doctor.stdout).toMatch(/^✓ database: 127\.0\.0\.1:\d+\/attestation_service connects/m);
    expect(doctor.stdout).toContain('✓ chain: 127.0.0.1:');
    expect(doctor.stdout).toContain(`✓ service: pid ${child.pid} answers ready on http://127.0.0.1:${port}`);
    expect(doctor.code).toBe(0);

    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect(stat(path)).rejects.toThrow(/ENOENT/);
  }, 180_000);
});
