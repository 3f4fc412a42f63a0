/**
 * Reasons as data (issue 58, "words at the edge"; ADR-0126): a failure's
 * reason is kept as machines/monitorMachine.ts's DownCause (a reason code
 * and the fields its words need), in `monitors.reason`,
 * `monitor_incidents.reason` and a "down" alert's `details.reason`, and
 * is put into words only when a page or a mail is rendered. A reason
 * stored in words before this migration is kept as
 * `{"code": "worded", "words": …}` and shown as it was. Never edited once
 * run; a change is a new file. Written before each table had one owner
 * (ADR-0128), it also rewrites the alerts in `mail_outbox`; it stays as it ran.
 */
import { sql, type Kysely } from 'kysely';

/** The JSON a reason kept in words becomes (null stays null). */
const worded = sql`case when reason is null then null
  else jsonb_build_object('code', 'worded', 'words', reason) end`;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['monitors', 'monitor_incidents']) {
    await sql`alter table ${sql.table(table)}
      drop constraint ${sql.ref(`${table}_reason_length`)}`.execute(db);
    await sql`alter table ${sql.table(table)}
      alter column reason type jsonb using ${worded}`.execute(db);
    // The cause's strings are capped where they are made (200 characters
    // each); this bounds the whole.
    await sql`alter table ${sql.table(table)}
      add constraint ${sql.ref(`${table}_reason_size`)}
      check (octet_length(reason::text) <= 2000)`.execute(db);
  }
  await sql`update mail_outbox
       set details = jsonb_set(details, '{reason}',
             jsonb_build_object('code', 'worded', 'words', details->>'reason'))
     where kind = 'down' and jsonb_typeof(details->'reason') = 'string'`.execute(
    db,
  );
}
