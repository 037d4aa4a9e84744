import { CamelCasePlugin, sql, type AliasedRawBuilder, type Insertable, type Selectable } from 'kysely';
import type { DB } from '../generated/kysely/database.ts';
import { NAMING } from './database.ts';

/** The query layer's own name mapping (db/database.ts), for the keys of a JSON row. */
class ColumnNames extends CamelCasePlugin {
  constructor() {
    super(NAMING);
  }
  column(field: string): string {
    return this.snakeCase(field);
  }
}
const names = new ColumnNames();

/** A value as PostgreSQL's input function for its column reads it from JSON text: bytea as `\x…` hex. */
function jsonValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** The JSON text parameter of `tableRows` and `jsonRows`: each row's fields under their column names. */
export function jsonText(rows: ReadonlyArray<Record<string, unknown>>): string {
  return JSON.stringify(
    rows.map((row) => {
      const out: Record<string, unknown> = {};
      for (const [field, value] of Object.entries(row)) out[names.column(field)] = jsonValue(value);
      return out;
    }),
  );
}

/**
 * Rows typed as `table`'s own rows, from one JSON parameter (`jsonb_populate_recordset`): for a statement that acts
 * on many rows with a value each (UPDATE … FROM, DELETE … USING, a lateral read per member of a group), where
 * VALUES would need a cast per column and unnest a positional list of typed arrays. A field not given is null.
 *
 *   db.updateTable('apiKeys as k').from(tableRows('apiKeys', seen, 'v'))
 *     .set((eb) => ({ lastUsedAt: eb.ref('v.lastUsedAt') })).whereRef('k.id', '=', 'v.id')
 */
export function tableRows<T extends keyof DB & string, A extends string>(
  table: T,
  rows: ReadonlyArray<Partial<Insertable<DB[T]>>>,
  alias: A,
): AliasedRawBuilder<Selectable<DB[T]>, A> {
  return sql<Selectable<DB[T]>>`jsonb_populate_recordset(null::${sql.table(table)}, ${jsonText(rows)}::jsonb)`.as(
    alias,
  );
}

/** PostgreSQL types of the columns `jsonRows` may declare. */
type ColumnType = 'text' | 'uuid' | 'int' | 'int8' | 'bpchar' | 'bytea' | 'jsonb' | 'timestamptz' | 'float8' | 'bool';

/**
 * Rows of named, typed columns that belong to no table, from one JSON parameter (`jsonb_to_recordset`): a group's
 * members with their own parameters and position, say. Each column is declared by name with its type.
 */
export function jsonRows<R extends Record<string, unknown>, A extends string>(
  rows: ReadonlyArray<R>,
  columns: { [K in keyof R & string]: ColumnType },
  alias: A,
): AliasedRawBuilder<R, A> {
  const definition = Object.entries(columns).map(([field, type]) => `${names.column(field)} ${type}`);
  return sql<R>`jsonb_to_recordset(${jsonText(rows)}::jsonb)`.as<A>(
    sql`${sql.id(alias)}(${sql.raw(definition.join(', '))})`,
  );
}
