import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Db, DB } from './database.ts';
import { prepareStatement } from './prepared-statements.ts';

/**
 * A hot read built and compiled once per database, then run with new parameters, its rows as PostgreSQL names them
 * (snake_case: no name mapping per row). Building and compiling a query and mapping each row's names cost a read by
 * uid a sixth of its CPU (docs/decisions.md, "Performance"); the query is still the query layer's, typed where it is
 * built, and `map` turns its rows into the store's.
 */
export function precompiled<Raw, Row, P extends unknown[]>(
  build: (db: Db, ...placeholders: P) => Compilable<unknown>,
  placeholders: P,
  map: (raw: Raw) => Row,
  /** The compiled query's parameters from the build's arguments, where the build encodes them (jsonRows, say). */
  encode: (...values: P) => unknown[] = (...values) => values,
): (db: Db, ...parameters: P) => Promise<Row[]> {
  const compiledFor = new WeakMap<Db, { query: CompiledQuery; plain: Kysely<DB> }>();
  return async (db, ...parameters) => {
    let entry = compiledFor.get(db);
    if (!entry) {
      entry = { query: build(db, ...placeholders).compile(), plain: db.withoutPlugins() };
      // the placeholders' values are the compiled query's parameters, in order: a build that adds its own breaks that
      const expected = encode(...placeholders).length;
      if (entry.query.parameters.length !== expected)
        throw new Error(`a precompiled query takes ${entry.query.parameters.length} parameters, not ${expected}`);
      prepareStatement(entry.query.sql);
      compiledFor.set(db, entry);
    }
    const { rows } = await entry.plain.executeQuery<Raw>({ ...entry.query, parameters: encode(...parameters) });
    return rows.map(map);
  };
}
