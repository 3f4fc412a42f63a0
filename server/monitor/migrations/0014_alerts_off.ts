/**
 * An off switch on alert mail (issue 58; ADR-0124): a site's alert mail
 * can be stopped from the mail itself (RFC 8058's one-click
 * `List-Unsubscribe`), with no session, and turned back on from `/`.
 * `monitors.alerts_stopped_at` says since when; `monitor_secrets` holds the
 * key that signs each site's stop link (HMAC-SHA256), made here from
 * PostgreSQL's strong random source (`gen_random_uuid`, 2 × 122 random
 * bits), so that no link can be made for a site without it. Never edited
 * once run; a change is a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('monitors')
    .addColumn('alerts_stopped_at', 'timestamptz')
    .execute();
  await db.schema
    .createTable('monitor_secrets')
    .addColumn('name', 'text', (column) => column.primaryKey())
    .addColumn('value', 'bytea', (column) => column.notNull())
    .execute();
  await sql`insert into monitor_secrets (name, value)
    values ('alerts-off', decode(replace(gen_random_uuid()::text
                                         || gen_random_uuid()::text, '-', ''),
                                 'hex'))`.execute(db);
}
