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
  // the webhook example's receiver (hooks.example.com) resolves to a public address
  // a public address as production has one (redocly warns of a localhost server, the default for a loopback HOST)
  svc = await startTestService({
    worker: false,
    resolve: async () => [{ address: '93.184.215.14', family: 4 }],
    env: { PUBLIC_BASE_URL: 'https://attestations.example.net' },
  });
  doc = (await call(svc.url, 'GET', '/openapi.json')).body;
});
afterAll(() => svc?.stop());

/** docs/api.md's endpoint table, with its `:uid` written the OpenAPI way. */
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

describe('GET /docs', () => {
  it('links only to what the server serves: its assets, its icon and the document', async () => {
    const page = await fetch(`${svc.url}/docs`).then((res) => res.text());
    const links = [...page.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
    expect(links).toContain('/docs/favicon.svg');
    const init = await fetch(`${svc.url}/docs/init.js`).then((res) => res.text());
    links.push(...[...init.matchAll(/url: '([^']+)'/g)].map((m) => m[1]!), '/favicon.ico');
    for (const link of links) expect((await fetch(new URL(link, svc.url))).status, link).toBe(200);
    expect((await fetch(`${svc.url}/favicon.ico`)).headers.get('content-type')).toBe('image/svg+xml');
  });

  it('has no website link that would lead nowhere', () => {
    expect(doc.info.contact).toEqual({ name: 'Attestation Service' });
  });

  it('offers request examples the API accepts as they are (Try it out)', async () => {
    const { key } = await svc.createKey('pro');
    for (const [path, method] of [
      ['/v1/attestations', 'post'],
      ['/v1/attestations/batch', 'post'],
      ['/v1/webhooks', 'post'],
    ] as const) {
      const examples = doc.paths[path][method].requestBody.content['application/json'].examples;
      for (const [name, example] of Object.entries<{ value: any }>(examples)) {
        const body = path === '/v1/webhooks' ? example.value : offchain(example.value);
        const res = await call(svc.url, method.toUpperCase(), path, { key, body });
        expect(res.status, `${path} ${name}: ${JSON.stringify(res.body)}`).toBe(201);
      }
    }
  });
});

/** An example with its on-chain items made off-chain: this file's service runs no worker to confirm them. */
function offchain(value: any): any {
  if (Array.isArray(value.attestations))
    return { attestations: value.attestations.map((item: object) => ({ ...item, mode: 'offchain' })) };
  return { ...value, mode: 'offchain' };
}

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1 and lists every endpoint of docs/api.md', () => {
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

  it('describes success statuses and error responses with the API error body', () => {
    const create = doc.paths['/v1/attestations'].post.responses;
    expect(Object.keys(create)).toEqual(
      expect.arrayContaining(['201', '400', '401', '413', '415', '429', '500', '503']),
    );
    expect(create['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(doc.paths['/v1/webhooks/{id}'].delete.responses['204']).toBeDefined();
    expect(doc.components.schemas.Error.properties.code.enum).toContain('QUOTA_EXCEEDED');
  });

  it('documents the headers each response carries', () => {
    for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(methods)) {
        const where = `${method} ${path}`;
        for (const [status, response] of Object.entries<any>(op.responses)) {
          expect(response.headers['X-Request-Id'], `${where} ${status}`).toBeDefined();
          expect(response.headers.RateLimit !== undefined, `${where} ${status}`).toBe(
            !path.endsWith('z') && status !== '405',
          );
          if (['429', '503'].includes(status))
            expect(response.headers['Retry-After'], `${where} ${status}`).toBeDefined();
          if (status === '401') expect(response.headers['WWW-Authenticate'], where).toBeDefined();
          if (status.startsWith('2') && method !== 'get')
            expect(response.headers['Idempotent-Replayed'], where).toBeDefined();
        }
        expect(op.responses['405'].headers.Allow, where).toBeDefined();
        if (path === '/healthz' || path === '/readyz') expect(Object.keys(op.responses), where).not.toContain('429');
      }
    }
    expect(doc.components.headers['WWW-Authenticate'].required).toBe(true);
  });

  it('says the creation body is content or contentHash, as a oneOf a generated client can type', () => {
    expect(doc.paths['/v1/attestations'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateAttestation',
    });
    expect(
      doc.paths['/v1/attestations/batch'].post.requestBody.content['application/json'].schema.properties.attestations
        .items,
    ).toEqual({ $ref: '#/components/schemas/CreateAttestation' });
    const [withContent, withHash] = doc.components.schemas.CreateAttestation.oneOf;
    expect(withContent).toMatchObject({ required: ['type', 'contentType', 'content'], additionalProperties: false });
    expect(withContent.properties.contentHash).toBeUndefined();
    expect(withHash).toMatchObject({ required: ['type', 'contentType', 'contentHash'], additionalProperties: false });
    expect(withHash.properties.content).toBeUndefined();
    expect(doc.paths['/v1/attestations/{uid}/revoke'].post.requestBody.required).toBe(false);
  });

  it("gives every body field a real example or bounds, never Swagger's placeholders", () => {
    const bare: string[] = [];
    const walk = (schema: any, where: string): void => {
      if (!schema || typeof schema !== 'object') return;
      if (Array.isArray(schema)) return schema.forEach((s, i) => walk(s, `${where}[${i}]`));
      const described =
        schema.example !== undefined ||
        schema.enum ||
        schema.const !== undefined ||
        ['date-time', 'uri'].includes(schema.format);
      if (schema.type === 'string' && !described) bare.push(where);
      const bounded = schema.minimum > Number.MIN_SAFE_INTEGER && schema.maximum !== undefined;
      if (schema.type === 'integer' && schema.const === undefined && !bounded) bare.push(where);
      for (const [key, value] of Object.entries(schema))
        if (!['example', 'examples', 'propertyNames'].includes(key)) walk(value, `${where}.${key}`);
    };
    walk(doc.components.schemas, 'components.schemas');
    for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(methods))
        walk([op.requestBody, op.responses], `${method} ${path}`);
    }
    expect(bare).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain('-9007199254740991');
  });

  it('formats every timestamp as a date-time', () => {
    const { Attestation, Webhook, WebhookDelivery, WebhookAttempt, AuditEntry } = doc.components.schemas;
    const fields = [
      Attestation.properties.createdAt,
      Attestation.properties.revokedAt.anyOf[0],
      Webhook.properties.createdAt,
      WebhookDelivery.properties.nextAttemptAt.anyOf[0],
      WebhookAttempt.properties.at,
      AuditEntry.properties.at,
    ];
    for (const field of fields) expect(field.format).toBe('date-time');
    expect(
      doc.paths['/v1/attestations/{uid}/revoke'].post.responses['200'].content['application/json'].schema.properties
        .revokedAt.format,
    ).toBe('date-time');
  });

  it('gives Idempotency-Key the pattern the server enforces', async () => {
    const { key } = await svc.createKey();
    const parameter = doc.paths['/v1/webhooks'].post.parameters.find(
      (p: { name: string }) => p.name === 'Idempotency-Key',
    );
    const pattern = new RegExp(parameter.schema.pattern);
    for (const candidate of ['with space', 'é-accent', 'x'.repeat(256), 'order-4711', '~!#'.repeat(85)]) {
      const body = { type: 'human', content: candidate, contentType: 'text/plain', mode: 'offchain' };
      const res = await call(svc.url, 'POST', '/v1/attestations', {
        key,
        body,
        headers: { 'Idempotency-Key': candidate },
      });
      expect(res.status === 201, candidate).toBe(pattern.test(candidate));
    }
  });

  it('states the per-account subscription limit and the duplicate-URL conflict', () => {
    const subscribe = doc.paths['/v1/webhooks'].post;
    expect(subscribe.description).toContain('at most 25 subscriptions');
    expect(subscribe.responses['400'].description).toContain('25 subscriptions');
    expect(subscribe.responses['409'].description).toContain('ALREADY_EXISTS');
  });

  it('sends the Bearer challenge with every 401, REST and /trpc alike', async () => {
    expect((await call(svc.url, 'GET', '/v1/webhooks')).headers.get('www-authenticate')).toBe(
      'Bearer realm="attestation-service"',
    );
    const wrong = await call(svc.url, 'GET', '/v1/webhooks', { key: `svc_free_${'0'.repeat(12)}_${'0'.repeat(32)}` });
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="attestation-service", error="invalid_token"');
    const trpc = await call(svc.url, 'GET', '/trpc/webhooks.list');
    expect(trpc.status).toBe(401);
    expect(trpc.headers.get('www-authenticate')).toBe('Bearer realm="attestation-service"');
  });

  it('passes redocly lint with no errors and no warnings', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'openapi-')), 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const redocly = join(import.meta.dirname, '../../node_modules/.bin/redocly');
    const { stdout, stderr } = await promisify(execFile)(redocly, ['lint', file, '--format', 'stylish'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((error: { stdout: string; stderr: string }) => error);
    const output = `${stdout}\n${stderr}`;
    expect(output, output).toMatch(/valid/i);
    expect(output, output).not.toMatch(/\berror\b/i);
    expect(output, output).not.toMatch(/warning/i);
  }, 120_000);
});
