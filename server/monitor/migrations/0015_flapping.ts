/**
 * A ceiling on alert mail (issue 58; ADR-0125): a site that opens a
 * fourth incident within an hour is flapping (`monitors.flapping_since`).
 * One mail says so; its next incidents, until it has been steady for 30
 * minutes, are one incident (`monitor_incidents.flaps` counts the times it
 * went down in it) and send no mail; then one mail says it is steady.
 * The outbox learns the two kinds. Never edited once run; a change is a
 * new file. Written before each table had one owner (ADR-0128), it also
 * widens `mail_outbox`; it stays as it ran.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('monitors')
    .addColumn('flapping_since', 'timestamptz')
    .execute();
  await db.schema
    .alterTable('monitor_incidents')
    .addColumn('flaps', 'integer', (column) => column.notNull().defaultTo(1))
    .execute();
  await sql`alter table mail_outbox drop constraint mail_outbox_kind`.execute(
    db,
  );
  await sql`alter table mail_outbox add constraint mail_outbox_kind
    check (kind in ('confirm', 'signin', 'down', 'up', 'flapping', 'steady'))`.execute(
    db,
  );
}
