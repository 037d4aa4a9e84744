import { expect } from 'vitest';
import { call } from '../support/service.ts';
import type { Prism } from '../support/prism.ts';

export type Options = { key?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string };

/**
 * Requests through Prism's two proxies, each recorded under its documented operation and status: `through` the strict
 * one (--errors), `rejected` for requests the document itself refuses (read through the lenient one).
 */
export function prismCalls(parts: () => { doc: any; strict: Prism; lenient: Prism }) {
  const exercised = new Map<string, Set<number>>();

  /** Which documented operation a request is: its method and path template. */
  function operationOf(method: string, path: string): string {
    const pathname = path.split('?')[0]!;
    // a literal path first: /v1/attestations/onchain is no {uid}
    const template =
      (pathname in parts().doc.paths ? pathname : undefined) ??
      Object.keys(parts().doc.paths).find((p) => new RegExp(`^${p.replace(/\{\w+\}/g, '[^/]+')}$`).test(pathname));
    return `${method.toLowerCase()} ${template ?? pathname}`;
  }

  /** A request through the strict proxy: answered by our API (not Prism) with `status`, and no violation. */
  async function through(method: string, path: string, status: number, opts: Options = {}) {
    const res = await call(parts().strict.url, method, path, opts);
    expect(res.headers.get('sl-violations'), `${method} ${path}: ${res.headers.get('sl-violations')}`).toBeNull();
    expect(
      res.headers.get('x-request-id'),
      `${method} ${path} answered by Prism: ${JSON.stringify(res.body)}`,
    ).toBeTruthy();
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
    const op = operationOf(method, path);
    exercised.set(op, (exercised.get(op) ?? new Set()).add(status));
    return res;
  }

  /** A request the document itself rejects: Prism refuses it under --errors; our API's answer to it is valid. */
  async function rejected(method: string, path: string, status: number, opts: Options = {}) {
    const refused = await call(parts().strict.url, method, path, opts);
    expect(refused.headers.get('x-request-id'), `${method} ${path} reached the API through --errors`).toBeNull();
    expect([401, 422]).toContain(refused.status);
    const res = await call(parts().lenient.url, method, path, opts);
    const violations = JSON.parse(res.headers.get('sl-violations') ?? '[]') as Array<{ location: string[] }>;
    expect(
      violations.filter((v) => v.location[0] !== 'request'),
      `${method} ${path}`,
    ).toEqual([]);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
    const op = operationOf(method, path);
    exercised.set(op, (exercised.get(op) ?? new Set()).add(status));
    return res;
  }

  return { through, rejected, exercised };
}
