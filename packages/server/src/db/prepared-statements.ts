import pg from 'pg';

/** The SQL texts run as named prepared statements, with their names (`hot_1`, …). */
const statementNames = new Map<string, string>();

/**
 * Marks a hot statement's SQL text (db/precompiled.ts) to be prepared once per connection: on a pool of PreparingClient
 * connections, PostgreSQL then parses and plans it once per connection instead of at every call. Planning was twice
 * the execution of the batched read by uid (docs/decisions.md, "Performance").
 */
export function prepareStatement(sql: string): void {
  if (!statementNames.has(sql)) statementNames.set(sql, `hot_${statementNames.size + 1}`);
}

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * pg's client, running the texts `prepareStatement` marked as named statements (node-postgres parses a name once per
 * connection). Only for connections that keep their session: a transaction-mode pooler (PgBouncer before 1.21) would
 * hand the next call a server connection that never saw the statement (db/session-check.ts tells them apart).
 */
export class PreparingClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const query = this.query.bind(this) as Query;
    const named: Query = (config, values, callback) => {
      const name = typeof config === 'string' ? statementNames.get(config) : undefined;
      return name === undefined ? query(config, values, callback) : query({ name, text: config, values }, callback);
    };
    this.query = named as typeof this.query;
  }
}
