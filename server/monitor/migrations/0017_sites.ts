/**
 * Many sites, one account (issue 59; ADR-0127): a monitor is a site of its
 * account's, up to `SITES_PER_ACCOUNT`, with a name (null: its host), how
 * often it is checked (`interval_factor` times `MONITOR_INTERVAL_SECONDS`)
 * and whether it is paused (`paused_at`: not checked, no alert, no next
 * check). Never edited once run; a change is a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitors drop constraint monitors_account_id_key`.execute(
    db,
  );
  await db.schema
    .createIndex('monitors_account')
    .on('monitors')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .alterTable('monitors')
    .addColumn('name', 'text')
    .addColumn('interval_factor', 'smallint', (column) =>
      column.notNull().defaultTo(1),
    )
    .addColumn('paused_at', 'timestamptz')
    .execute();
  await db.schema
    .alterTable('monitors')
    .addCheckConstraint('monitors_name_length', sql`char_length(name) <= 100`)
    .execute();
  await db.schema
    .alterTable('monitors')
    .addCheckConstraint(
      'monitors_interval_factor',
      sql`interval_factor in (1, 2, 5, 10, 30, 60)`,
    )
    .execute();
  // A paused site has no next check; nor does one waiting for its owner's
  // address (ADR-0120), which is not paused.
  await db.schema
    .alterTable('monitors')
    .addCheckConstraint(
      'monitors_paused_unscheduled',
      sql`paused_at is null or next_check_at is null`,
    )
    .execute();
}
