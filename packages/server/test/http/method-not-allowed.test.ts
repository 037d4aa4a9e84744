import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let doc: any;
const unknownUid = `0x${'0'.repeat(63)}1`;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
  doc = (await call(svc.url, 'GET', '/openapi.json')).body;
}, 60_000);
afterAll(() => svc?.stop());

describe('405 on every documented path', () => {
  it('answers a method the path does not take with METHOD_NOT_ALLOWED and the documented methods in Allow', async () => {
    for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
      const concrete = path.replace('{uid}', unknownUid).replace('{id}', randomUUID());
      const res = await call(svc.url, 'PUT', concrete, { body: {} });
      expect(res.status, path).toBe(405);
      expect(res.body.code).toBe('METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')!.split(', ').sort()).toEqual(
        Object.keys(methods)
          .map((m) => m.toUpperCase())
          .sort(),
      );
      for (const op of Object.values(methods)) expect(op.responses['405'].headers.Allow).toBeDefined();
    }
  });
});
