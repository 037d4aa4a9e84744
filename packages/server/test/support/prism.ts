import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { freePort } from '../../src/system/ports.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Prism {
  url: string;
  stop(): Promise<void>;
}

const PRISM = join(import.meta.dirname, '../../node_modules/.bin/prism');

/**
 * `prism proxy` with this OpenAPI document in front of `upstream`: it validates every request and response
 * against the document; with `errors`, a violation becomes Prism's own error response (see prism.test.ts).
 */
export async function startPrism(document: unknown, upstream: string, opts: { errors: boolean }): Promise<Prism> {
  const file = join(await mkdtemp(join(tmpdir(), 'prism-')), 'openapi.json');
  await writeFile(file, JSON.stringify(document));
  const port = await freePort();
  const args = [
    'proxy',
    file,
    upstream,
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    `--errors=${opts.errors}`,
    '--verboseLevel',
    'silent',
  ];
  const child = spawn(PRISM, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilUp(url, child, () => stderr);
  return { url, stop: () => stop(child) };
}

async function waitUntilUp(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`prism exited (${child.exitCode}): ${stderr()}`);
    const up = await fetch(`${url}/healthz`).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error(`prism did not start: ${stderr()}`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill();
  });
}
