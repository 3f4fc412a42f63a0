/**
 * The monitoring the welcome page promises (issue 45; ADR-0103 to ADR-0108):
 * one monitor per account with a site, its up/down
 * state (machines/monitorMachine.ts) and when its next check is due; the
 * raw checks of the last hours, their hourly aggregates, and the
 * incidents; and the alert mails in the outbox beside the link mails.
 *
 * Accounts made before this migration that gave a site get their monitor
 * here, due at once: the welcome page made them the same promise. Never
 * edited once run; a change is a new file. Written before each table had
 * one owner (ADR-0128), it also reads `accounts` and widens `mail_outbox`; it
 * stays as it ran.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('monitors')
    .addColumn('id', 'bigint', (column) =>
      column.primaryKey().generatedAlwaysAsIdentity(),
    )
    .addColumn('account_id', 'uuid', (column) =>
      column.notNull().unique().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('site_url', 'text', (column) => column.notNull())
    .addColumn('state', 'text', (column) =>
      column.notNull().defaultTo('pending'),
    )
    .addColumn('failing_since', 'timestamptz')
    .addColumn('reason', 'text')
    .addColumn('next_check_at', 'timestamptz', (column) =>
      column.notNull().defaultTo(sql`now()`),
    )
    .addColumn('lease_until', 'timestamptz')
    // The number of the claim that holds the row: a result is written only
    // by the claim that is still the row's latest (a fencing token).
    .addColumn('claims', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('last_check', 'jsonb')
    .addColumn('checked_at', 'timestamptz')
    .addColumn('check_now_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (column) =>
      column.notNull().defaultTo(sql`now()`),
    )
    .addCheckConstraint(
      'monitors_state',
      sql`state in ('pending', 'up', 'suspect', 'down')`,
    )
    .addCheckConstraint(
      'monitors_site_url_length',
      sql`char_length(site_url) <= 2048`,
    )
    .addCheckConstraint(
      'monitors_reason_length',
      sql`char_length(reason) <= 500`,
    )
    .execute();
  // The claim: what is due, soonest first.
  await db.schema
    .createIndex('monitors_next_check_at')
    .on('monitors')
    .column('next_check_at')
    .execute();

  // The raw checks, kept for a few hours (ADR-0107); no key: rows are read
  // and deleted by monitor and time.
  await db.schema
    .createTable('monitor_checks')
    .addColumn('monitor_id', 'bigint', (column) =>
      column.notNull().references('monitors.id').onDelete('cascade'),
    )
    .addColumn('checked_at', 'timestamptz', (column) => column.notNull())
    .addColumn('up', 'boolean', (column) => column.notNull())
    .addColumn('status', 'smallint')
    .addColumn('total_ms', 'integer', (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('monitor_checks_monitor_time')
    .on('monitor_checks')
    .columns(['monitor_id', 'checked_at'])
    .execute();
  await db.schema
    .createIndex('monitor_checks_checked_at')
    .on('monitor_checks')
    .column('checked_at')
    .execute();

  // One row per monitor and hour, rolled up from the raw checks (ADR-0107).
  await db.schema
    .createTable('monitor_hours')
    .addColumn('monitor_id', 'bigint', (column) =>
      column.notNull().references('monitors.id').onDelete('cascade'),
    )
    .addColumn('hour', 'timestamptz', (column) => column.notNull())
    .addColumn('checks', 'integer', (column) => column.notNull())
    .addColumn('up', 'integer', (column) => column.notNull())
    // Of the checks that were up; null when none was.
    .addColumn('median_ms', 'integer')
    .addColumn('slowest_ms', 'integer')
    .addPrimaryKeyConstraint('monitor_hours_pkey', ['monitor_id', 'hour'])
    .execute();
  await db.schema
    .createIndex('monitor_hours_hour')
    .on('monitor_hours')
    .column('hour')
    .execute();

  // An incident: from the first failed check to the check that found the
  // site up again (ADR-0104), kept for a year.
  await db.schema
    .createTable('monitor_incidents')
    .addColumn('id', 'bigint', (column) =>
      column.primaryKey().generatedAlwaysAsIdentity(),
    )
    .addColumn('monitor_id', 'bigint', (column) =>
      column.notNull().references('monitors.id').onDelete('cascade'),
    )
    .addColumn('started_at', 'timestamptz', (column) => column.notNull())
    .addColumn('ended_at', 'timestamptz')
    .addColumn('reason', 'text', (column) => column.notNull())
    .addCheckConstraint(
      'monitor_incidents_reason_length',
      sql`char_length(reason) <= 500`,
    )
    .execute();
  await db.schema
    .createIndex('monitor_incidents_monitor_started')
    .on('monitor_incidents')
    .columns(['monitor_id', 'started_at'])
    .execute();
  // At most one open incident per monitor.
  await db.schema
    .createIndex('monitor_incidents_open')
    .on('monitor_incidents')
    .column('monitor_id')
    .unique()
    .where(sql.ref('ended_at'), 'is', null)
    .execute();

  // The alerts travel through the outbox with the link mails; what they
  // say (the site, the reason, when) is in `details`.
  await sql`alter table mail_outbox drop constraint mail_outbox_kind`.execute(
    db,
  );
  await sql`alter table mail_outbox add constraint mail_outbox_kind
    check (kind in ('confirm', 'signin', 'down', 'up'))`.execute(db);
  await db.schema
    .alterTable('mail_outbox')
    .addColumn('details', 'jsonb')
    .execute();

  await sql`insert into monitors (account_id, site_url)
    select id, site_url from accounts where site_url is not null`.execute(db);
}
