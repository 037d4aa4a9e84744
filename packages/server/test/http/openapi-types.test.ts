import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

const run = promisify(execFile);
const bin = (name: string, root = '../..') => join(import.meta.dirname, root, 'node_modules/.bin', name);

/** A client's code: both creation bodies type-check, a body with neither field must not. */
const CLIENT = `import type { components, paths } from './api';

type Create = components['schemas']['CreateAttestation'];
type CreateBody = paths['/v1/attestations']['post']['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;

export const withContent: Create = { type: 'human', content: 'A poem', contentType: 'text/plain' };
export const withHash: CreateBody = { type: 'ai', contentHash: '0x${'ab'.repeat(32)}', contentType: 'image/png', mode: 'offchain' };
export const batch: components['schemas']['CreateAttestation'][] = [withContent, withHash];
// @ts-expect-error a creation body needs content or contentHash
export const neither: CreateBody = { type: 'human', contentType: 'text/plain' };
`;

let svc: TestService;
let doc: any;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
  doc = (await call(svc.url, 'GET', '/openapi.json')).body;
});
afterAll(() => svc?.stop());

/** Generates the client types of `document` with openapi-typescript and type-checks CLIENT against them. */
async function typeCheckClient(document: unknown): Promise<{ ok: boolean; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'openapi-types-'));
  await writeFile(join(dir, 'openapi.json'), JSON.stringify(document));
  // a field with a default (mode) is optional in a request: without the flag, openapi-typescript 7 makes it required
  const args = [join(dir, 'openapi.json'), '-o', join(dir, 'api.d.ts'), '--default-non-nullable', 'false'];
  await run(bin('openapi-typescript'), args, { env: { ...process.env, REDOCLY_TELEMETRY: 'off' } });
  await writeFile(join(dir, 'client.ts'), CLIENT);
  const tscArgs = [
    '--noEmit',
    '--strict',
    '--target',
    'es2022',
    '--module',
    'esnext',
    '--moduleResolution',
    'bundler',
    join(dir, 'client.ts'),
  ];
  return run(bin('tsc', '../../../..'), tscArgs).then(
    ({ stdout }) => ({ ok: true, output: stdout }),
    (error: { stdout: string; stderr: string }) => ({ ok: false, output: `${error.stdout}${error.stderr}` }),
  );
}

describe('a client generated from /openapi.json (openapi-typescript)', () => {
  it('types a creation body as content or contentHash, and one with neither as an error', async () => {
    const { ok, output } = await typeCheckClient(doc);
    expect(output).toBe('');
    expect(ok).toBe(true);
  }, 60_000);

  it('would accept a body with neither field if the document lost its oneOf (the check above can fail)', async () => {
    const [withContent] = doc.components.schemas.CreateAttestation.oneOf;
    const loose = structuredClone(doc);
    loose.components.schemas.CreateAttestation = {
      ...withContent,
      required: ['type', 'contentType'],
      properties: { ...withContent.properties, contentHash: { type: 'string' } },
    };
    const { ok, output } = await typeCheckClient(loose);
    expect(ok).toBe(false);
    expect(output).toMatch(/Unused '@ts-expect-error' directive/);
  }, 60_000);
});
