/**
 * Kysely's migrator over the migrations it is given (the features own
 * their tables and their migrations; server/schema.ts merges them). Forward
 * only: no migration has a `down`, and a change to a schema is a new file.
 * Kysely's migrator holds a PostgreSQL advisory lock while it runs, so
 * instances that start together apply each migration once, one after the
 * other.
 */
import type { Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';

/** Name → migration; Kysely runs them in the order of their names. */
export type Migrations = Readonly<Record<string, Migration>>;

/**
 * Brings the database up to the latest migration.
 *
 * @param migrations every migration, by name
 * @returns the names of the migrations this call applied (none when
 *   another instance, or an earlier start, already had)
 * @throws the migration's error when one fails; nothing of that migration
 *   stays (each runs in a transaction)
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  migrations: Migrations,
): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve({ ...migrations }) },
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw error;
  return results
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}
