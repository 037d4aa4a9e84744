import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appRouter } from '../../src/router.ts';
import { collectRoutes } from '../../src/http/routes.ts';
import { buildOpenApiDocument } from '../../src/http/openapi.ts';

const versionOf = (pkg: string): string =>
  JSON.parse(readFileSync(new URL(`../../../${pkg}/package.json`, import.meta.url), 'utf8')).version;

describe('the OpenAPI document', () => {
  // a change to the contract shows up here as a diff to review (and to commit with `vitest -u`); a restructure of
  // the code behind the router must leave it byte for byte the same
  it('is the reviewed one, byte for byte', async () => {
    const doc = buildOpenApiDocument(appRouter, collectRoutes(appRouter), { baseUrl: 'http://127.0.0.1:8080' });
    await expect(`${JSON.stringify(doc, null, 2)}\n`).toMatchFileSnapshot('./openapi.snapshot.json');
  });

  it("carries the version of the server's package, which the SDK's package carries too", () => {
    const doc = buildOpenApiDocument(appRouter, collectRoutes(appRouter), { baseUrl: 'http://127.0.0.1:8080' });
    expect(doc.info.version).toBe(versionOf('server'));
    expect(versionOf('client')).toBe(versionOf('server'));
  });
});
