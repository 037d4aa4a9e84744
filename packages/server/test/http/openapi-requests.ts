import { randomUUID } from 'node:crypto';
import { newCustomer } from '../attesters/support.ts';

const unknownUid = `0x${'0'.repeat(63)}1`;

/** A URL of the operation that the document accepts: path parameters filled in, required query parameters too. */
export function urlOf(path: string, op: any): string {
  const query = (op.parameters ?? [])
    .filter((p: any) => p.in === 'query' && p.required)
    .map((p: any) => `${p.name}=${p.schema.example}`);
  const concrete = path
    .replace('{uid}', unknownUid)
    .replace('{id}', randomUUID())
    .replace('{address}', newCustomer().address)
    .replace(/\{(\w+)\}/g, (_, name: string) =>
      String((op.parameters ?? []).find((p: any) => p.in === 'path' && p.name === name)?.schema?.example ?? name),
    );
  return `${concrete}${query.length ? `?${query.join('&')}` : ''}`;
}

/** The operation's first request example (the document's own), for a call whose body is not the point. */
export function exampleBody(op: any): unknown {
  const examples = op.requestBody?.content?.['application/json']?.examples ?? {};
  return (Object.values(examples)[0] as { value?: unknown } | undefined)?.value;
}
