// pnpm bench:webhooks — just the webhook figures (a quick check while tuning the worker).
import pg from 'pg';
import { measureWebhooks, renderWebhooks } from './webhooks.ts';

const admin = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const made: string[] = [];
async function databaseFor(name: string): Promise<string> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  const db = `bench_${name}_${Date.now()}`;
  await client.query(`CREATE DATABASE ${db}`);
  await client.end();
  made.push(db);
  const url = new URL(admin);
  url.pathname = `/${db}`;
  return url.toString();
}
try {
  console.log(renderWebhooks(await measureWebhooks(databaseFor)));
} finally {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  for (const db of made) await client.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await client.end();
}
