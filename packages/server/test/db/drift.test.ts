import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { actualSchema, describeDrift, expectedSchema, SCHEMA_PATH } from './drift-support.ts';

// The schema engine (`prisma migrate diff`) cannot be downloaded here, so drift is found by comparing what
// schema.prisma describes with the catalog of a migrated database (drift-support.ts derives both sides).

describe('schema drift', () => {
  let schema: string;
  let databaseUrl: string;
  beforeAll(async () => {
    schema = await readFile(SCHEMA_PATH, 'utf8');
    databaseUrl = await createTestDatabase();
  });

  it('finds the migrated database exactly as schema.prisma describes it', async () => {
    const drift = describeDrift(expectedSchema(schema), await actualSchema(databaseUrl));
    if (drift) expect.fail(`${drift}\nWrite a new migration in prisma/migrations (or fix schema.prisma).`);
  });

  it('maps schema.prisma to PostgreSQL types, keys and index order', () => {
    const expected = expectedSchema(schema);
    expect(expected).toEqual(
      expect.arrayContaining([
        'column api_keys.prefix character(12) not null',
        'column attestations.created_at timestamp(3) with time zone not null default',
        'column attestations.id bigint not null default',
        'column attestations.offchain jsonb',
        'column idempotency_records.key character varying(255) not null',
        'primary key monthly_usage_pkey on monthly_usage using btree (api_key_id, period)',
        'index attestations_content_hash_id_idx on attestations using btree (content_hash, id DESC)',
        'foreign key api_keys (account_id) references accounts (id) on delete Restrict',
        'column webhook_subscriptions.events text[]',
        'unique index webhook_subscriptions_account_id_url_key on webhook_subscriptions using btree (account_id, url) where (deleted_at IS NULL)',
      ]),
    );
  });

  it('reports a model that no migration creates', async () => {
    const extended = `${schema}\nmodel Extra {\n  id   Int      @id\n  at   DateTime\n\n  @@map("extras")\n}\n`;
    expect(describeDrift(expectedSchema(extended), await actualSchema(databaseUrl))).toBe(
      [
        'schema.prisma and the migrated database differ:',
        '  in schema.prisma, missing from the database:',
        '    - column extras.at timestamp(3) without time zone not null',
        '    - column extras.id integer not null',
        '    - primary key extras_pkey on extras using btree (id)',
        '    - table extras',
      ].join('\n'),
    );
  });

  it("reports a list column's nullability and a partial index's predicate that differ from schema.prisma", async () => {
    const altered = await createTestDatabase();
    // raw SQL on purpose: the schema changed behind the service's back is the fault under test
    const client = new pg.Client({ connectionString: altered });
    await client.connect();
    await client.query(`
      ALTER TABLE webhook_subscriptions ALTER COLUMN events SET NOT NULL;
      DROP INDEX webhook_subscriptions_account_id_url_key;
      CREATE UNIQUE INDEX webhook_subscriptions_account_id_url_key ON webhook_subscriptions (account_id, url);`);
    await client.end();

    expect(describeDrift(expectedSchema(schema), await actualSchema(altered))).toBe(
      [
        'schema.prisma and the migrated database differ:',
        '  in schema.prisma, missing from the database:',
        '    - column webhook_subscriptions.events text[]',
        '    - unique index webhook_subscriptions_account_id_url_key on webhook_subscriptions using btree (account_id, url) where (deleted_at IS NULL)',
        '  in the database, not in schema.prisma:',
        '    + column webhook_subscriptions.events text[] not null',
        '    + unique index webhook_subscriptions_account_id_url_key on webhook_subscriptions using btree (account_id, url)',
      ].join('\n'),
    );
  });

  it('reports columns, types, indexes and foreign keys changed in the database behind its back', async () => {
    const altered = await createTestDatabase();
    // raw SQL on purpose: the schema changed behind the service's back is the fault under test
    const client = new pg.Client({ connectionString: altered });
    await client.connect();
    await client.query(`
      ALTER TABLE api_keys DROP COLUMN name;
      ALTER TABLE accounts ALTER COLUMN name TYPE VARCHAR(100);
      CREATE INDEX accounts_created_at_idx ON accounts (created_at DESC);
      ALTER TABLE attestations DROP CONSTRAINT attestations_api_key_id_fkey;`);
    await client.end();

    expect(describeDrift(expectedSchema(schema), await actualSchema(altered))).toBe(
      [
        'schema.prisma and the migrated database differ:',
        '  in schema.prisma, missing from the database:',
        '    - column accounts.name text not null',
        '    - column api_keys.name text',
        '    - foreign key attestations (api_key_id) references api_keys (id) on delete Restrict',
        '  in the database, not in schema.prisma:',
        '    + column accounts.name character varying(100) not null',
        '    + index accounts_created_at_idx on accounts using btree (created_at DESC)',
      ].join('\n'),
    );
  });
});
