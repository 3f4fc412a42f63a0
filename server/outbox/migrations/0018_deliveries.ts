/**
 * The outbox of notifications (issue 60; ADR-0129): one row per delivery of
 * one notice to one destination (an address, or a webhook's, Slack's,
 * Discord's or ntfy's URL), queued in the transaction that causes it and
 * delivered at least once by the outbox's worker, in order within its
 * `stream` (a site's deliveries to one channel). `kind` is the notice's
 * kind, which the feature that queued it renders (`site.down`, …).
 *
 * `target`, `secret` and the copy of what was sent are dropped 7 days
 * after the delivery ended (ADR-0089). Never edited once run; a change is a
 * new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'bigint', (column) =>
      column.primaryKey().generatedAlwaysAsIdentity(),
    )
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('channel', 'text', (column) => column.notNull())
    .addColumn('account_id', 'uuid', (column) =>
      column.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('channel_id', 'bigint')
    .addColumn('target', 'text')
    .addColumn('secret', 'text')
    .addColumn('stream', 'text', (column) => column.notNull())
    .addColumn('payload', 'jsonb', (column) => column.notNull())
    .addColumn('state', 'text', (column) =>
      column.notNull().defaultTo('pending'),
    )
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (column) =>
      column.notNull().defaultTo(sql`now()`),
    )
    .addColumn('lease_until', 'timestamptz')
    .addColumn('deadline_at', 'timestamptz', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) =>
      column.notNull().defaultTo(sql`now()`),
    )
    .addColumn('sent_at', 'timestamptz')
    .addColumn('dead_at', 'timestamptz')
    .addColumn('delivered_via', 'text')
    .addColumn('last_error', 'text')
    .addColumn('last_status', 'smallint')
    .addColumn('subject', 'text')
    .addColumn('text_body', 'text')
    .addCheckConstraint(
      'deliveries_channel',
      sql`channel in ('email', 'webhook', 'slack', 'discord', 'ntfy')`,
    )
    .addCheckConstraint(
      'deliveries_state',
      sql`state in ('pending', 'sending', 'sent', 'dead')`,
    )
    .addCheckConstraint('deliveries_attempts', sql`attempts >= 0`)
    .addCheckConstraint(
      'deliveries_target',
      sql`char_length(target) <= 2048 and (target is not null or state in ('sent', 'dead'))`,
    )
    .addCheckConstraint(
      'deliveries_sent',
      sql`(state = 'sent') = (sent_at is not null)`,
    )
    .addCheckConstraint(
      'deliveries_dead',
      sql`(state = 'dead') = (dead_at is not null)`,
    )
    .addCheckConstraint(
      'deliveries_delivered_via',
      sql`delivered_via in ('smtp', 'file', 'http')`,
    )
    .addCheckConstraint(
      'deliveries_last_error',
      sql`char_length(last_error) <= 200`,
    )
    .execute();
  // The worker's claim: what is due, or whose lease has ended.
  await db.schema
    .createIndex('deliveries_due')
    .on('deliveries')
    .column('next_attempt_at')
    .where(sql.ref('state'), 'in', sql`('pending', 'sending')`)
    .execute();
  // The order within a stream: the earlier deliveries not yet ended.
  await db.schema
    .createIndex('deliveries_stream')
    .on('deliveries')
    .columns(['stream', 'id'])
    .where(sql.ref('state'), 'in', sql`('pending', 'sending')`)
    .execute();
  // The cascade when an account is deleted; a channel's deliveries.
  await db.schema
    .createIndex('deliveries_account_id')
    .on('deliveries')
    .column('account_id')
    .execute();
  await db.schema
    .createIndex('deliveries_channel_id')
    .on('deliveries')
    .columns(['channel_id', 'id'])
    .where(sql.ref('channel_id'), 'is not', null)
    .execute();
  // Housekeeping: copies past 7 days, rows past their retention.
  await db.schema
    .createIndex('deliveries_finished')
    .on('deliveries')
    .expression(sql`coalesce(sent_at, dead_at)`)
    .where(sql.ref('state'), 'in', sql`('sent', 'dead')`)
    .execute();
}
