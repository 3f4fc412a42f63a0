/**
 * Signed-in browsers: the `{product}_SESSION` cookie, stored as its
 * SHA-256 (ADR-0046). Never edited once run; a change is a
 * new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('session_hash', 'bytea', (column) => column.primaryKey())
    .addColumn('account_id', 'uuid', (column) =>
      column.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'timestamptz', (column) =>
      column.notNull().defaultTo(sql`now()`),
    )
    .addColumn('expires_at', 'timestamptz', (column) => column.notNull())
    .addColumn('ended_at', 'timestamptz')
    .addCheckConstraint(
      'sessions_hash_length',
      sql`octet_length(session_hash) = 32`,
    )
    .execute();
  await db.schema
    .createIndex('sessions_account_id')
    .on('sessions')
    .column('account_id')
    .execute();
}
