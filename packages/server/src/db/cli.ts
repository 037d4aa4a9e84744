import type { WithInfrastructure } from '../infrastructure.ts';

/** `migrate`: applies the migrations ahead of a deploy (opening the database applies them) and says which. */
export async function migrateCommand(withInfrastructure: WithInfrastructure): Promise<boolean> {
  const applied = await withInfrastructure(async ({ migrations }) => migrations);
  console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
  return true;
}
