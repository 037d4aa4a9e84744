/**
 * Row types of the raw `pg` queries, derived from Prisma's generated models (`Prisma.<Model>Model`, picked) so that
 * a column's type is written once, in schema.prisma. Where pg hands back something else than Prisma: an int8
 * (BigInt) comes as text, since pg does not parse int8; timestamps are Dates, jsonb is parsed and bytea is a Buffer
 * (a Uint8Array) in both.
 */
import type { Prisma } from '../generated/prisma/client.ts';

export type { Prisma };

type PgValue<T> = T extends bigint ? string : T;

/** A model's row as pg returns it for columns selected under their Prisma field names (`AS "camelCase"`). */
export type PgRow<T> = { [K in keyof T]: PgValue<T[K]> };

/** `requestHash` → `request_hash`: a field's column name, as schema.prisma maps every field. */
type Snake<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${Snake<T>}`
  : S;

/** A model's row as pg returns it for columns selected under their own snake_case names. */
export type PgSnakeRow<T> = { [K in keyof T as K extends string ? Snake<K> : K]: PgValue<T[K]> };
