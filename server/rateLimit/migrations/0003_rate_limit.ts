/**
 * The sign-up rate limit's counters, shared by every instance on one
 * database (ADR-0039, ADR-0047). Never edited once run; a change
 * is a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rate_limit_windows')
    .addColumn('key', 'text', (column) => column.primaryKey())
    .addColumn('hits', 'integer', (column) => column.notNull())
    .addColumn('window_ends_at', 'timestamptz', (column) => column.notNull())
    .addCheckConstraint('rate_limit_windows_hits', sql`hits >= 1`)
    .execute();
  await db.schema
    .createIndex('rate_limit_windows_ends_at')
    .on('rate_limit_windows')
    .column('window_ends_at')
    .execute();
}
