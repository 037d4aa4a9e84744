import { resolve } from 'node:path';
import { get_dmmf } from '@prisma/prisma-schema-wasm';
import pg from 'pg';

// The schema engine (`prisma migrate diff`) cannot be downloaded here, so drift is found by comparing what
// schema.prisma describes (its DMMF, from Prisma's WASM schema library) with the catalog of a migrated database.
// Each side becomes a set of lines such as `index attestations_account_id_idx on attestations using btree (account_id)`.

type Field = {
  name: string;
  dbName?: string;
  kind: string;
  type: string;
  isList: boolean;
  isRequired: boolean;
  isUpdatedAt: boolean;
  nativeType: [string, string[]] | null;
  default?: unknown;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
};
type Model = { name: string; dbName: string | null; fields: Field[] };
type Index = {
  model: string;
  type: string;
  dbName?: string;
  algorithm?: string;
  fields: { name: string; sortOrder?: string }[];
};
type Datamodel = { models: Model[]; enums: { name: string; dbName?: string | null }[]; indexes: Index[] };

export const SCHEMA_PATH = resolve(import.meta.dirname, '../../../../prisma/schema.prisma');

// `%` takes the native type's arguments, as PostgreSQL's format_type() prints them.
const NATIVE_TYPES: Record<string, string> = {
  Text: 'text',
  Char: 'character%',
  VarChar: 'character varying%',
  Uuid: 'uuid',
  Xml: 'xml',
  Inet: 'inet',
  Citext: 'citext',
  Boolean: 'boolean',
  Integer: 'integer',
  SmallInt: 'smallint',
  Oid: 'oid',
  BigInt: 'bigint',
  Decimal: 'numeric%',
  Money: 'money',
  Real: 'real',
  DoublePrecision: 'double precision',
  Date: 'date',
  Json: 'json',
  JsonB: 'jsonb',
  ByteA: 'bytea',
  Bit: 'bit%',
  VarBit: 'bit varying%',
  Timestamp: 'timestamp% without time zone',
  Timestamptz: 'timestamp% with time zone',
  Time: 'time% without time zone',
  Timetz: 'time% with time zone',
};
// Prisma's default native type of each scalar on PostgreSQL.
const SCALAR_TYPES: Record<string, [string, string[]]> = {
  String: ['Text', []],
  Int: ['Integer', []],
  BigInt: ['BigInt', []],
  Float: ['DoublePrecision', []],
  Decimal: ['Decimal', ['65', '30']],
  DateTime: ['Timestamp', ['3']],
  Boolean: ['Boolean', []],
  Json: ['JsonB', []],
  Bytes: ['ByteA', []],
};
const CLIENT_SIDE_DEFAULTS = new Set(['uuid', 'cuid', 'ulid', 'nanoid']);
const FK_ACTIONS: Record<string, string> = {
  a: 'NoAction',
  r: 'Restrict',
  c: 'Cascade',
  n: 'SetNull',
  d: 'SetDefault',
};

/** Reads the DMMF datamodel of a Prisma schema with Prisma's WASM schema library (no engine binary). */
function readDatamodel(schema: string): Datamodel {
  return JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', schema]] }))).datamodel as Datamodel;
}

const quoteIfNeeded = (name: string) => (/^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name}"`);

// Prisma's default constraint names, cut to PostgreSQL's 63-character identifiers.
const defaultName = (base: string, suffix: string) => base.slice(0, 63 - suffix.length) + suffix;

function columnType(field: Field, datamodel: Datamodel): string {
  const enumType = datamodel.enums.find((e) => e.name === field.type);
  const [native, args] = field.nativeType ?? SCALAR_TYPES[field.type] ?? [];
  const base = enumType
    ? quoteIfNeeded(enumType.dbName ?? enumType.name)
    : (NATIVE_TYPES[native ?? ''] ?? `unmapped ${field.type}`).replace('%', args?.length ? `(${args.join(',')})` : '');
  return field.isList ? `${base}[]` : base;
}

function hasDatabaseDefault(field: Field): boolean {
  if (field.default === undefined) return false;
  const fn = field.default as { name?: string };
  return !(typeof fn === 'object' && fn !== null && CLIENT_SIDE_DEFAULTS.has(fn.name ?? ''));
}

/**
 * The predicates of partial indexes (`@@unique([...], map: "name", where: raw("..."))`), by index name: the DMMF
 * leaves them out, so they are read from the schema text. PostgreSQL prints a predicate in parentheses.
 */
function indexPredicates(schema: string): Map<string, string> {
  const predicates = new Map<string, string>();
  for (const line of schema.split('\n').filter((l) => /^\s*@@(unique|index)\(.*\bwhere:/.test(l))) {
    const name = /\bmap:\s*"([^"]+)"/.exec(line)?.[1];
    const predicate = /\bwhere:\s*raw\("((?:[^"\\]|\\.)*)"\)/.exec(line)?.[1];
    if (!name || !predicate)
      throw new Error(`a partial index needs map: "name" and where: raw("...") on one line: ${line.trim()}`);
    predicates.set(name, predicate.startsWith('(') ? predicate : `(${predicate})`);
  }
  return predicates;
}

/** Describes the tables, columns, keys and indexes schema.prisma asks for, one line per element. */
export function expectedSchema(schema: string): string[] {
  const datamodel = readDatamodel(schema);
  const predicates = indexPredicates(schema);
  const lines: string[] = [];
  const model = (name: string) => datamodel.models.find((m) => m.name === name)!;
  const table = (m: Model) => m.dbName ?? m.name;
  const column = (m: Model, field: string) => m.fields.find((f) => f.name === field)?.dbName ?? field;
  for (const m of datamodel.models) {
    lines.push(`table ${table(m)}`);
    for (const f of m.fields.filter((f) => f.kind !== 'object')) {
      // Prisma Migrate writes a list (`String[]`, required in the DMMF) as a nullable array: `TEXT[]`, no NOT NULL
      const nullability = f.isRequired && !f.isList ? ' not null' : '';
      lines.push(
        `column ${table(m)}.${column(m, f.name)} ${columnType(f, datamodel)}${nullability}${hasDatabaseDefault(f) ? ' default' : ''}`,
      );
    }
    for (const f of m.fields.filter((f) => f.kind === 'object' && f.relationFromFields?.length)) {
      const target = model(f.type);
      const from = f.relationFromFields!.map((name) => column(m, name));
      const onDelete = f.relationOnDelete ?? (f.isRequired ? 'Restrict' : 'SetNull');
      // DMMF carries neither the constraint name nor onUpdate, so neither is compared.
      lines.push(
        `foreign key ${table(m)} (${from.join(', ')}) references ${table(target)} (${f.relationToFields!.map((n) => column(target, n)).join(', ')}) on delete ${onDelete}`,
      );
    }
  }
  for (const index of datamodel.indexes) {
    const m = model(index.model);
    const columns = index.fields.map((f) => column(m, f.name));
    const kind = { id: 'primary key', unique: 'unique index', normal: 'index' }[index.type] ?? index.type;
    const suffix = { id: '_pkey', unique: '_key', normal: '_idx' }[index.type] ?? '';
    const name = index.dbName ?? defaultName(index.type === 'id' ? table(m) : [table(m), ...columns].join('_'), suffix);
    const list = index.fields.map((f, i) => columns[i] + (f.sortOrder === 'desc' ? ' DESC' : '')).join(', ');
    const where = predicates.has(name) ? ` where ${predicates.get(name)}` : '';
    lines.push(`${kind} ${name} on ${table(m)} using ${(index.algorithm ?? 'BTree').toLowerCase()} (${list})${where}`);
  }
  return lines.sort();
}

/** Describes the same elements as found in the database's catalog (its current schema, minus Prisma's bookkeeping). */
export async function actualSchema(databaseUrl: string): Promise<string[]> {
  // raw SQL on purpose: the schema as PostgreSQL's catalog holds it, to compare with schema.prisma
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const ours = `n.nspname = current_schema() AND t.relkind IN ('r', 'p') AND t.relname <> '_prisma_migrations'`;
    const rows = async (sql: string) => (await client.query<{ line: string }>(sql)).rows.map((r) => r.line);
    const tables = await rows(
      `SELECT 'table ' || t.relname AS line FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace WHERE ${ours}`,
    );
    const columns = await rows(`
      SELECT 'column ' || t.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
             || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END || CASE WHEN a.atthasdef THEN ' default' ELSE '' END AS line
      FROM pg_attribute a JOIN pg_class t ON t.oid = a.attrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE ${ours} AND a.attnum > 0 AND NOT a.attisdropped`);
    const indexes = await rows(`
      SELECT CASE WHEN x.indisprimary THEN 'primary key ' WHEN x.indisunique THEN 'unique index ' ELSE 'index ' END
             || i.relname || ' on ' || t.relname || ' using ' || am.amname || ' ('
             || (SELECT string_agg(coalesce(a.attname::text, pg_get_indexdef(x.indexrelid, k + 1, true))
                                   || CASE WHEN x.indoption[k] & 1 = 1 THEN ' DESC' ELSE '' END, ', ' ORDER BY k)
                 FROM generate_subscripts(x.indkey, 1) k LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[k])
             || ')' || coalesce(' where ' || pg_get_expr(x.indpred, x.indrelid), '') AS line
      FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_am am ON am.oid = i.relam JOIN pg_namespace n ON n.oid = t.relnamespace WHERE ${ours}`);
    const foreignKeys = await rows(`
      SELECT 'foreign key ' || t.relname || ' (' || (SELECT string_agg(a.attname, ', ' ORDER BY k.ord) FROM unnest(c.conkey) WITH ORDINALITY k(num, ord)
                                              JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.num)
             || ') references ' || r.relname || ' (' || (SELECT string_agg(a.attname, ', ' ORDER BY k.ord) FROM unnest(c.confkey) WITH ORDINALITY k(num, ord)
                                              JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.num)
             || ') on delete ' || c.confdeltype::text AS line
      FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace WHERE c.contype = 'f' AND ${ours}`);
    const named = foreignKeys.map((line) =>
      line.replace(/on delete (\w)$/, (_, code: string) => `on delete ${FK_ACTIONS[code]}`),
    );
    return [...tables, ...columns, ...indexes, ...named].sort();
  } finally {
    await client.end();
  }
}

/** Says, line by line, how the database differs from schema.prisma; empty when they agree. */
export function describeDrift(expected: string[], actual: string[]): string {
  const missing = expected.filter((line) => !actual.includes(line));
  const extra = actual.filter((line) => !expected.includes(line));
  if (missing.length === 0 && extra.length === 0) return '';
  return [
    'schema.prisma and the migrated database differ:',
    ...(missing.length ? ['  in schema.prisma, missing from the database:', ...missing.map((l) => `    - ${l}`)] : []),
    ...(extra.length ? ['  in the database, not in schema.prisma:', ...extra.map((l) => `    + ${l}`)] : []),
  ].join('\n');
}
