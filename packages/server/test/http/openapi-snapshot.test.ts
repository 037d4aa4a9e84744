import { describe, expect, it } from 'vitest';
import { appRouter } from '../../src/router.ts';
import { collectRoutes } from '../../src/http/routes.ts';
import { buildOpenApiDocument } from '../../src/http/openapi.ts';

describe('the OpenAPI document', () => {
  // a change to the contract shows up here as a diff to review (and to commit with `vitest -u`); a restructure of
  // the code behind the router must leave it byte for byte the same
  it('is the reviewed one, byte for byte', async () => {
    const doc = buildOpenApiDocument(appRouter, collectRoutes(appRouter), {
      baseUrl: 'http://127.0.0.1:8080',
      version: '1.0.0',
    });
    await expect(`${JSON.stringify(doc, null, 2)}\n`).toMatchFileSnapshot('./openapi.snapshot.json');
  });
});
