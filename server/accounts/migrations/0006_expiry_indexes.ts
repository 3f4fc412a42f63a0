/**
 * Indexes for deleting what has expired (issue 35; ADR-0089):
 * one-time tokens and sessions past `expires_at`, and
 * consent records past their retention (`recorded_at`). The service deletes
 * them every few minutes; without these indexes each run would read the
 * whole table. Never edited once run; a change is a new file. Written
 * before each table had one owner (ADR-0128), it also indexes the consent
 * feature's table; it stays as it ran.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('one_time_tokens_expires_at')
    .on('one_time_tokens')
    .column('expires_at')
    .execute();
  await db.schema
    .createIndex('sessions_expires_at')
    .on('sessions')
    .column('expires_at')
    .execute();
  await db.schema
    .createIndex('consent_records_recorded_at')
    .on('consent_records')
    .column('recorded_at')
    .execute();
}
