/**
 * The monitor waits for a proven address (issue 58; ADR-0120): a site whose
 * owner has not confirmed the address is checked once, at sign-up, and
 * then waits with no next check (`next_check_at` NULL) until the address
 * is confirmed. Rows made before this migration keep their time; an
 * unconfirmed one waits from its next check on. Never edited once run; a
 * change is a new file.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('monitors')
    .alterColumn('next_check_at', (column) => column.dropNotNull())
    .execute();
}
