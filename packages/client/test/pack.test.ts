import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CLIENT_DIR = join(import.meta.dirname, '..');
const TSC = join(CLIENT_DIR, '../../node_modules/typescript/bin/tsc');

describe('the packed SDK', () => {
  it('installs into a fresh TypeScript project that type-checks calls to attestations.create and verifyAnchor (no server source)', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'sdk-consumer-'));
    // packs the dist that `./dev test` built before the suite; rebuilding here would empty dist under the examples' feet
    expect(existsSync(join(CLIENT_DIR, 'dist/index.js')), 'build the SDK first (./dev test does)').toBe(true);
    await run('pnpm', ['pack', '--pack-destination', scratch], { cwd: CLIENT_DIR });
    const tarball = (await readdir(scratch)).find((f) => f.endsWith('.tgz'))!;
    const { stdout: listing } = await run('tar', ['-tzf', join(scratch, tarball)]);
    const files = listing.trim().split('\n');
    for (const file of files)
      expect(file).toMatch(
        /^package\/(package\.json|README\.md|LICENSE|dist\/(index\.(c?js|d\.c?ts)|browser\.js)(\.map)?)$/,
      );
    expect(files).toEqual(expect.arrayContaining(['package/README.md', 'package/LICENSE']));
    // the published manifest names only what a consumer can install: no workspace link, no private package (the
    // protocol, bundled into dist, is a development dependency: never installed with the SDK)
    const { stdout: manifest } = await run('tar', ['-xzOf', join(scratch, tarball), 'package/package.json']);
    expect(manifest).not.toContain('workspace:');
    expect(manifest).not.toContain('@attestation-service/server');
    const { dependencies, peerDependencies, optionalDependencies } = JSON.parse(manifest);
    const installed = Object.keys({ ...dependencies, ...peerDependencies, ...optionalDependencies });
    expect(installed.filter((name) => name.startsWith('@attestation-service/'))).toEqual([]);
    expect(JSON.parse(manifest)).toMatchObject({ license: 'Apache-2.0' });

    await writeFile(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--offline', join(scratch, tarball)], {
      cwd: scratch,
      env: { ...process.env, npm_config_nodedir: '' },
    }).catch(() => run('npm', ['install', '--no-audit', '--no-fund', join(scratch, tarball)], { cwd: scratch }));
    await writeFile(
      join(scratch, 'app.ts'),
      `import { createClient, isServiceError, verifyAnchor, type CreatedAttestation } from '@attestation-service/client';
const client = createClient({ baseUrl: 'http://localhost:8080', apiKey: 'svc_free_000000000000_00000000000000000000000000000000' });
export async function attest(): Promise<CreatedAttestation> {
  try {
    return await client.attestations.create({ type: 'human', content: 'hello', contentType: 'text/plain', mode: 'offchain' });
  } catch (error) {
    if (isServiceError(error, 'QUOTA_EXCEEDED')) console.log(error.details.resetsAt.toFixed(0));
    throw error;
  }
}
export async function existedBy(uid: string): Promise<Date | undefined> {
  const result = await verifyAnchor(await client.attestations.get(uid), { rpcUrl: 'http://localhost:8545' });
  return result.valid ? result.existedBy : undefined;
}
// @ts-expect-error: 'robot' is not an origin
client.attestations.create({ type: 'robot', content: 'x', contentType: 'text/plain' });
`,
    );
    await writeFile(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        files: ['app.ts'],
      }),
    );
    const result = await run(process.execPath, [TSC, '-p', scratch]).then(
      () => ({ ok: true, output: '' }),
      (e: { stdout: string }) => ({ ok: false, output: e.stdout }),
    );
    expect(result.output).toBe('');
    expect(result.ok).toBe(true);
  }, 180_000);
});
