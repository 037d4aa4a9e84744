import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let doc: any;

beforeAll(async () => {
  svc = await startTestService();
  doc = (await call(svc.url, 'GET', '/openapi.json')).body;
});
afterAll(() => svc?.stop());

/** The spec's endpoint table, with its `:uid` written the OpenAPI way. */
const SPEC_ENDPOINTS = [
  ['post', '/v1/attestations'],
  ['post', '/v1/attestations/batch'],
  ['get', '/v1/attestations/{uid}'],
  ['get', '/v1/attestations'],
  ['post', '/v1/attestations/{uid}/revoke'],
  ['post', '/v1/webhooks'],
  ['get', '/v1/webhooks'],
  ['delete', '/v1/webhooks/{id}'],
  ['get', '/v1/audit/export'],
  ['get', '/healthz'],
  ['get', '/readyz'],
] as const;

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1 and lists every endpoint of the spec', () => {
    expect(doc.openapi).toBe('3.1.0');
    for (const [method, path] of SPEC_ENDPOINTS) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
  });

  it('marks gated routes with the bearer scheme and public ones with none', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/v1/attestations'].post.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/v1/audit/export'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/v1/attestations/{uid}'].get.security).toEqual([{}, { bearerAuth: [] }]);
    expect(doc.paths['/healthz'].get.security).toEqual([]);
  });

  it('describes success statuses and error responses with the spec error body', () => {
    const create = doc.paths['/v1/attestations'].post.responses;
    expect(Object.keys(create)).toEqual(expect.arrayContaining(['201', '400', '401', '413', '415', '429', '500', '503']));
    expect(create['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(doc.paths['/v1/webhooks/{id}'].delete.responses['204']).toBeDefined();
    expect(doc.components.schemas.Error.properties.code.enum).toContain('QUOTA_EXCEEDED');
  });

  it('passes redocly lint with no errors and no warnings', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'openapi-')), 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const redocly = join(import.meta.dirname, '../../node_modules/.bin/redocly');
    const { stdout, stderr } = await promisify(execFile)(redocly, ['lint', file, '--format', 'stylish'], { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } }).catch((error: { stdout: string; stderr: string }) => error);
    const output = `${stdout}\n${stderr}`;
    expect(output, output).toMatch(/valid/i);
    expect(output, output).not.toMatch(/\berror\b/i);
    expect(output, output).not.toMatch(/warning/i);
  }, 120_000);
});
