import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Db, DB } from './database.ts';
import { prepareStatement } from './prepared-statements.ts';

/**
 * A hot statement built and compiled once per process, then run with new parameters, its rows as PostgreSQL names
 * them (snake_case: no name mapping per row). Building and compiling a query and mapping each row's names cost a read
 * by uid a sixth of its CPU, and a group commit of creates a tenth of its own (docs/decisions.md, "Performance"); the
 * statement is still the query layer's, typed where it is built, and `map` turns its rows into the store's. Every
 * `Db` compiles it to the same text (one dialect, one naming: db/database.ts), a transaction's included, so it runs
 * on whichever it is given.
 */
export function precompiled<Raw, Row, P extends unknown[]>(
  build: (db: Db, ...placeholders: P) => Compilable<unknown>,
  placeholders: P,
  map: (raw: Raw) => Row,
  /** The compiled query's parameters from the build's arguments, where the build encodes them (jsonRows, say). */
  encode: (...values: P) => unknown[] = (...values) => values,
): (db: Db, ...parameters: P) => Promise<Row[]> {
  let query: CompiledQuery | undefined;
  const plainOf = new WeakMap<Db, Kysely<DB>>();
  return async (db, ...parameters) => {
    if (!query) {
      const compiled = build(db, ...placeholders).compile();
      // the placeholders' values are the compiled query's parameters, in order: a build that adds its own breaks that
      const expected = encode(...placeholders).length;
      if (compiled.parameters.length !== expected)
        throw new Error(`a precompiled query takes ${compiled.parameters.length} parameters, not ${expected}`);
      prepareStatement(compiled.sql);
      query = compiled;
    }
    let plain = plainOf.get(db);
    if (!plain) plainOf.set(db, (plain = db.withoutPlugins()));
    const { rows } = await plain.executeQuery<Raw>({ ...query, parameters: encode(...parameters) });
    return rows.map(map);
  };
}
