/**
 * Proven sessions (issue 46; ADR-0112): a session opened
 * by a sign-in link proves that its browser read the account's mail, and
 * is marked so (`proven_at`). Every other session (the sign-up's first
 * sign-in, whether or not it later posted a confirmation) is unproven, and
 * the account's next sign-in by e-mail link ends it. Sessions from before
 * this migration cannot be told apart, so they count as unproven: the
 * owner's next link signs them out once. Never edited once run; a change is
 * a new file.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('sessions')
    .addColumn('proven_at', 'timestamptz')
    .execute();
}
