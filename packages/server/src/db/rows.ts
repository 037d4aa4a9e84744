/**
 * Row types of the raw `pg` queries, derived from Prisma's generated models so that a column's type is written once
 * (schema.prisma). `PgRow` says what pg hands back where it differs from Prisma: an int8 (BigInt) as text, since pg
 * does not parse int8; timestamps are Dates, jsonb is parsed and bytea is a Buffer (a Uint8Array) in both.
 */
import type { Prisma } from '../generated/prisma/client.ts';

export type { Prisma };

type PgValue<T> = T extends bigint ? string : T;

/** A model's row as pg returns it for columns selected under their Prisma field names (`AS "camelCase"`). */
export type PgRow<T> = { [K in keyof T]: PgValue<T[K]> };
