/**
 * The rate limit's counters skip the write-ahead log (ADR-0047):
 * a count is worth less than the commit it would
 * otherwise wait for on every request, and after a crash of the database
 * server the windows simply start again. Never edited once run; a change is
 * a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table rate_limit_windows set unlogged`.execute(db);
}
