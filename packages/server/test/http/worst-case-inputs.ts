// The worst-case inputs and the targets they go to, derived from the router and from better-auth's endpoint list, for
// worst-case-bodies.test.ts.
import { randomBytes } from 'node:crypto';
import { AUTH_BASE_PATH } from '../../src/dashboard/auth.ts';
import { createBetterAuth } from '../../src/dashboard/better-auth.ts';
import type { Db } from '../../src/db/database.ts';
import { MAX_BODY_BYTES } from '../../src/http/body.ts';
import { allProcedures } from '../../src/http/trpc-internals.ts';
import { collectRoutes } from '../../src/http/routes.ts';
import { appRouter } from '../../src/router.ts';

/** A worst-case input: `rule` ones break a rule every procedure enforces (depth, width), the others are merely big. */
export interface Payload {
  name: string;
  rule: boolean;
  text: string;
}

export const LIMIT = MAX_BODY_BYTES - 64;
/** Legitimate 1 MiB creates measured first, as the baseline of what a body of that size does to /healthz. */
export const BASELINE_CREATES = 40;
const deep = (open: string, close: string, filler = '') => {
  const levels = Math.floor(LIMIT / (open.length + close.length + filler.length));
  return `${open.repeat(levels)}${filler}${close.repeat(levels)}`;
};
const wideObject = () => {
  const fields: string[] = [];
  for (let i = 0, size = 2; size < LIMIT - 16; i++) size += fields[fields.push(`"k${i}":0`) - 1]!.length + 1;
  return `{${fields.join(',')}}`;
};

/** Bodies of (almost) 1 MiB: the largest any surface reads. */
export const BODIES: Payload[] = [
  { name: 'deep lists', rule: true, text: deep('[', ']') },
  { name: 'deep objects', rule: true, text: deep('{"a":', '}', '1') },
  {
    name: 'deep lists with siblings',
    rule: true,
    text: `${'['.repeat(Math.floor(LIMIT / 4))}0${',0]'.repeat(Math.floor(LIMIT / 4))}`,
  },
  { name: 'an object of 100,000 fields', rule: true, text: wideObject() },
  { name: 'one 1 MiB string', rule: false, text: JSON.stringify({ content: 'x'.repeat(LIMIT - 20) }) },
  { name: 'many escapes', rule: false, text: `{"content":"${'\\u00e9\\n\\"'.repeat(Math.floor(LIMIT / 12) - 2)}"}` },
];

/** What a URL can carry (Node takes 16 KiB of request line and headers): JSON for /trpc queries' `input`. */
export const QUERY_INPUTS: Payload[] = [
  { name: 'deep lists', rule: true, text: `${'['.repeat(2000)}${']'.repeat(2000)}` },
  { name: 'deep objects', rule: true, text: `${'{"a":'.repeat(700)}1${'}'.repeat(700)}` },
  { name: 'a list of 1,500 items', rule: true, text: `[${Array(1500).fill('0').join(',')}]` },
  { name: 'a 6 KB string', rule: false, text: JSON.stringify({ content: 'x'.repeat(6000) }) },
];

/** Query strings for REST and the sign-in surface's GETs (their values are text: no nesting to refuse). */
export const QUERY_STRINGS: Payload[] = [
  { name: '2,000 repeats of one parameter', rule: false, text: 'hash=a&'.repeat(2000) },
  { name: 'a 12 KB value', rule: false, text: `hash=${'a'.repeat(12_000)}` },
];

export interface Target {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  takesInput: boolean;
  /** Whether the input rules judge what it is sent: every procedure with an input, and every sign-in POST body. */
  judged: boolean;
  /** GET procedures of /trpc take JSON in `input`; other GETs take plain query strings. */
  query: 'trpc' | 'plain';
}

const procedures = (
  appRouter as unknown as {
    _def: { procedures: Record<string, { _def: { inputs: unknown[]; meta?: { probe?: boolean } } }> };
  }
)._def.procedures;
const takesInput = (name: string) => procedures[name]!._def.inputs.length > 0 && !procedures[name]!._def.meta?.probe;

export const restTargets: Target[] = collectRoutes(appRouter).map((route) => ({
  name: `REST ${route.method} ${route.path}`,
  method: route.method as Target['method'],
  url: route.path
    .replace(/\{uid\}/g, `0x${'ab'.repeat(32)}`)
    .replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000'),
  takesInput: takesInput(route.procedure),
  judged: takesInput(route.procedure),
  query: 'plain',
}));

export const trpcTargets: Target[] = allProcedures(appRouter).map((p) => ({
  name: `/trpc ${p.name}`,
  method: p.type === 'query' ? 'GET' : 'POST',
  url: `/trpc/${p.name}`,
  takesInput: takesInput(p.name),
  judged: takesInput(p.name),
  query: 'trpc',
}));

/** better-auth's endpoints as it lists them itself (the instance is only asked for its list, never served). */
export function signInTargets(db: Db): Target[] {
  const auth = createBetterAuth({
    db,
    publicBaseUrl: 'http://localhost:1',
    secret: randomBytes(32).toString('hex'),
    signup: 'open',
    log: { warn() {}, error() {}, info() {}, debug() {} },
  } as unknown as Parameters<typeof createBetterAuth>[0]) as unknown as {
    api: Record<string, { path?: string; options?: { method?: string | string[] } }>;
  };
  return Object.values(auth.api).flatMap((endpoint) => {
    if (!endpoint.path) return []; // server-only: no HTTP path
    const methods = [endpoint.options?.method ?? 'GET'].flat().filter((m) => m === 'GET' || m === 'POST');
    return methods.map((method) => ({
      name: `sign-in ${method} ${endpoint.path}`,
      method: method as Target['method'],
      url: `${AUTH_BASE_PATH}${endpoint.path!.replace(/:\w+/g, 'x')}`,
      // some endpoints (sign-out) ignore what their body says, once the rules have judged it
      takesInput: false,
      judged: method === 'POST',
      query: 'plain' as const,
    }));
  });
}
