// Each tRPC internal the service relies on (src/http/trpc-internals.ts), exercised against a tiny router: a tRPC or
// trpc-to-openapi upgrade that changes one fails here, by name, before it breaks the REST dispatch or a middleware.
import { readdirSync, readFileSync } from 'node:fs';
import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  allProcedures,
  formattedErrorShape,
  inputSchemaOf,
  openApiProcedures,
  runProcedure,
  shortCircuit,
  TRPC_SERVER_VERSION,
  TRPC_TO_OPENAPI_VERSION,
} from '../../src/http/trpc-internals.ts';

/** The installed version of a dependency of the server package (trpc-to-openapi exports no package.json). */
const installed = (name: string) =>
  (
    JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;

const t = initTRPC
  .context<{ calls: string[] }>()
  .meta<OpenApiMeta<{ note?: string }>>()
  .create({ errorFormatter: ({ shape, error }) => ({ formatted: true, code: shape.code, message: error.message }) });
const traced = t.procedure.use(async ({ ctx, next, type, path, getRawInput }) => {
  ctx.calls.push(`${type} ${path} ${JSON.stringify(await getRawInput())}`);
  return next({ ctx: { seen: true } });
});
const Input = z.object({ id: z.string().min(2) });
const tiny = t.router({
  items: t.router({
    get: traced
      .meta({ openapi: { method: 'GET', path: '/items/{id}' }, note: 'kept' })
      .input(Input)
      .output(z.object({ id: z.string(), seen: z.boolean() }))
      .query(({ input, ctx }) => ({ id: input.id, seen: ctx.seen })),
    hidden: t.procedure.input(Input).mutation(() => 'no route'),
    put: traced
      .meta({ openapi: { method: 'POST', path: '/items' } })
      .use(
        ({ next, getRawInput }) =>
          getRawInput().then((raw) =>
            (raw as { replay?: string }).replay ? shortCircuit({ replayed: true }) : next(),
          ) as never,
      )
      .mutation(() => ({ replayed: false })),
  }),
});

describe('tRPC internals (src/http/trpc-internals.ts)', () => {
  it(`were written against @trpc/server ${TRPC_SERVER_VERSION} and trpc-to-openapi ${TRPC_TO_OPENAPI_VERSION}`, () => {
    const advice = 'an upgrade: run this file, fix src/http/trpc-internals.ts until it passes, then update the version';
    expect(installed('@trpc/server'), advice).toBe(TRPC_SERVER_VERSION);
    expect(installed('trpc-to-openapi'), advice).toBe(TRPC_TO_OPENAPI_VERSION);
  });

  it('openApiProcedures lists the procedures with openapi meta, by dotted name, with their meta', () => {
    const entries = openApiProcedures<{ openapi: { path: string }; note?: string }>(tiny);
    expect(entries.map(({ name, meta }) => [name, meta.openapi.path, meta.note])).toEqual([
      ['items.get', '/items/{id}', 'kept'],
      ['items.put', '/items', undefined],
    ]);
    // read from the router's flat record of procedures by dotted name (`_def.procedures`)
    expect(entries[0]!.procedure).toBe((tiny._def.procedures as Record<string, unknown>)['items.get']);
  });

  it('allProcedures lists every procedure, routed or not, by dotted name with its type', () => {
    expect(allProcedures(tiny)).toEqual([
      { name: 'items.get', type: 'query' },
      { name: 'items.hidden', type: 'mutation' },
      { name: 'items.put', type: 'mutation' },
    ]);
  });

  it('runProcedure runs the whole chain: middleware (type, path, raw input, context), input and output schemas', async () => {
    const get = openApiProcedures(tiny)[0]!.procedure;
    const ctx = { calls: [] as string[] };
    await expect(runProcedure(get, 'items.get', ctx, async () => ({ id: 'ab' }))).resolves.toEqual({
      id: 'ab',
      seen: true,
    });
    expect(ctx.calls).toEqual(['query items.get {"id":"ab"}']);
    const invalid = await runProcedure(get, 'items.get', ctx, async () => ({ id: 'a' })).catch(
      (error: unknown) => error,
    );
    expect(invalid).toBeInstanceOf(TRPCError);
    expect((invalid as TRPCError).code).toBe('BAD_REQUEST');
    expect((invalid as TRPCError).cause?.name).toBe('ZodError');
  });

  it('shortCircuit ends the chain with its data: the resolver never runs', async () => {
    const put = openApiProcedures(tiny)[1]!.procedure;
    const ctx = { calls: [] as string[] };
    await expect(runProcedure(put, 'items.put', ctx, async () => ({ replay: 'yes' }))).resolves.toEqual({
      replayed: true,
    });
    await expect(runProcedure(put, 'items.put', ctx, async () => ({}))).resolves.toEqual({ replayed: false });
    expect(ctx.calls).toEqual(['mutation items.put {"replay":"yes"}', 'mutation items.put {}']);
  });

  it('inputSchemaOf is the one declared input schema itself', () => {
    const [get, put] = openApiProcedures(tiny).map(({ procedure }) => procedure);
    expect(inputSchemaOf(get!)).toBe(Input);
    expect(inputSchemaOf(put!)).not.toBe(Input);
  });

  it("formattedErrorShape is the router's error formatter's shape", () => {
    const shape = formattedErrorShape(tiny, new TRPCError({ code: 'CONFLICT', message: 'taken' }));
    expect(shape).toEqual({ formatted: true, code: -32009, message: 'taken' });
  });
});

describe('the @trpc/server patch (patches/, docs/decisions.md "tRPC\'s object spread")', () => {
  const root = new URL('../../../../', import.meta.url);
  const patched = Object.keys(
    (
      JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
        pnpm: { patchedDependencies: Record<string, string> };
      }
    ).pnpm.patchedDependencies,
  );

  it('was made for the installed version: an upgrade must redo the patch or drop it', () => {
    const advice =
      'the patch edits a content-hashed dist chunk of one version: redo it for the new one (pnpm patch) or drop it';
    expect(patched, advice).toEqual([`@trpc/server@${installed('@trpc/server')}`]);
  });

  it("is applied: tRPC's object spread helper is Object.assign", () => {
    const dist = new URL('../../node_modules/@trpc/server/dist/', import.meta.url);
    const chunks = readdirSync(dist).filter((name) => /^getErrorShape-.*\.(mjs|cjs)$/.test(name));
    expect(chunks).toHaveLength(2);
    for (const chunk of chunks)
      expect(readFileSync(new URL(chunk, dist), 'utf8')).toContain('Object.assign(e, arguments[r])');
  });
});
