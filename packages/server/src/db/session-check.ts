import pg from 'pg';

/**
 * Whether connections to this URL keep their PostgreSQL session between transactions, as a direct connection or a
 * session-mode pooler does; a transaction-mode pooler (PgBouncer's `pool_mode = transaction`) gives each transaction
 * whichever server connection is free. Told by behaviour, so it holds for any pooler: one client's backend must stay
 * the same while a second client opens a transaction between two of its statements, and the second client's backend
 * must never be the first's. A pooler that hands out the server released last (PgBouncer's default) fails at the
 * first round; the further rounds are for one that hands them out in turn (`server_round_robin`).
 */
async function probeSession(databaseUrl: string, rounds: number): Promise<boolean> {
  const first = new pg.Client({ connectionString: databaseUrl });
  const second = new pg.Client({ connectionString: databaseUrl });
  const backend = async (client: pg.Client) =>
    (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  try {
    await first.connect();
    await second.connect();
    const mine = await backend(first);
    for (let round = 0; round < rounds; round++) {
      await second.query('BEGIN');
      try {
        const theirs = await backend(second);
        if (theirs === mine || (await backend(first)) !== mine) return false;
      } finally {
        await second.query('COMMIT');
      }
    }
    return true;
  } finally {
    await Promise.allSettled([first.end(), second.end()]);
  }
}

/** Verdicts by URL: a process that runs the worker and the API on one URL (`serve`) asks twice at start. */
const verdicts = new Map<string, Promise<boolean>>();

/** Whether connections to this URL keep their session (probeSession), asked of the URL once per process. */
export function keepsSession(databaseUrl: string, rounds = 3): Promise<boolean> {
  let verdict = verdicts.get(databaseUrl);
  if (!verdict) {
    // a failure (the database unreachable) is not a verdict: the next caller asks again
    verdict = probeSession(databaseUrl, rounds).catch((error: unknown) => {
      verdicts.delete(databaseUrl);
      throw error;
    });
    verdicts.set(databaseUrl, verdict);
  }
  return verdict;
}

/** Thrown at start by a process that needs a session (the worker) on a URL that does not keep one. */
class SessionPoolingRequired extends Error {}

/**
 * Refuses to go on when `databaseUrl` goes through a transaction-mode pooler: the worker holds session-level advisory
 * locks (one relayer signs at a time, one anchor run at a time) and LISTENs for new jobs, which such a pooler breaks
 * silently (a lock taken by one transaction stays with a server connection another client gets next).
 */
export async function requireSession(databaseUrl: string, role: string): Promise<void> {
  if (await keepsSession(databaseUrl)) return;
  throw new SessionPoolingRequired(
    `${role} needs a PostgreSQL session of its own (advisory locks, LISTEN), and its database URL goes through a ` +
      'transaction-mode pooler (each transaction may get another server connection): set WORKER_DATABASE_URL to ' +
      'PostgreSQL directly or to a session-mode pool (PgBouncer pool_mode = session); see docs/operations.md',
  );
}
