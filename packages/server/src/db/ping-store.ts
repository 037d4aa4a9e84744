import { sql } from 'kysely';
import type { Db } from './database.ts';

/** Whether the database answers: one `SELECT 1` (readiness probes); throws when it does not. */
export async function ping(db: Db): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
