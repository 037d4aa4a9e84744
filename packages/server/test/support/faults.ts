import { randomUUID } from 'node:crypto';
import type { TestService } from './service.ts';

/**
 * A fault only one member's row meets: PostgreSQL raises when that hash is inserted (this test's own database). Raw
 * SQL on purpose: the fault is a trigger planted in the database, which no typed query can say.
 */
export async function injectInsertFault(svc: Pick<TestService, 'sql'>, hash: string): Promise<() => Promise<void>> {
  const name = `fault_${randomUUID().replaceAll('-', '')}`;
  await svc.sql.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.content_hash = '${hash}' THEN RAISE EXCEPTION 'injected fault for %', NEW.content_hash; END IF;
      RETURN NEW;
    END $$`);
  await svc.sql.query(`CREATE TRIGGER ${name} BEFORE INSERT ON attestations
    FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  return async () => {
    await svc.sql.query(`DROP TRIGGER ${name} ON attestations`);
    await svc.sql.query(`DROP FUNCTION ${name}()`);
  };
}
