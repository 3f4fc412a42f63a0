/**
 * Alert channels (issue 60; ADR-0129): where an account's alerts go besides
 * its own address, up to 10: more addresses (each proven by a link before
 * it gets anything), a webhook (with its signing secret), Slack, Discord
 * or ntfy. A channel alerts for every site of the account unless narrowed
 * to some (`alert_channel_sites`). A channel whose deliveries die is
 * failing since then, with the last error; a 410 or an unsubscribe
 * disables it (`disabled_reason`: `gone`, `unsubscribed`). A webhook's
 * secret is shown once, on the first view of its page (`secret_shown_at`);
 * "Send a test alert" keeps its last answer (`last_test_at`,
 * `last_test_result`). Never edited once run; a change is a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alert_channels')
    .addColumn('id', 'bigint', (column) =>
      column.primaryKey().generatedAlwaysAsIdentity(),
    )
    .addColumn('account_id', 'uuid', (column) =>
      column.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('target', 'text', (column) => column.notNull())
    .addColumn('secret', 'text')
    .addColumn('all_sites', 'boolean', (column) =>
      column.notNull().defaultTo(true),
    )
    .addColumn('confirmed_at', 'timestamptz')
    .addColumn('confirm_token_hash', 'bytea')
    .addColumn('unsubscribe_token', 'text', (column) => column.notNull())
    .addColumn('failing_since', 'timestamptz')
    .addColumn('last_error', 'text')
    .addColumn('disabled_at', 'timestamptz')
    .addColumn('disabled_reason', 'text')
    .addColumn('secret_shown_at', 'timestamptz')
    .addColumn('last_test_at', 'timestamptz')
    .addColumn('last_test_result', 'text')
    .addColumn('created_at', 'timestamptz', (column) =>
      column.notNull().defaultTo(sql`now()`),
    )
    .addCheckConstraint(
      'alert_channels_kind',
      sql`kind in ('email', 'webhook', 'slack', 'discord', 'ntfy')`,
    )
    .addCheckConstraint(
      'alert_channels_target',
      sql`char_length(target) between 1 and 2048`,
    )
    .addCheckConstraint(
      'alert_channels_secret',
      sql`(kind = 'webhook') = (secret is not null)`,
    )
    .addCheckConstraint(
      'alert_channels_last_error',
      sql`char_length(last_error) <= 200`,
    )
    .addCheckConstraint(
      'alert_channels_disabled',
      sql`(disabled_at is null) = (disabled_reason is null)
          and disabled_reason in ('gone', 'unsubscribed')`,
    )
    .addCheckConstraint(
      'alert_channels_last_test_result',
      sql`char_length(last_test_result) <= 200`,
    )
    .execute();
  await db.schema
    .createIndex('alert_channels_account_id')
    .on('alert_channels')
    .column('account_id')
    .execute();
  await db.schema
    .createIndex('alert_channels_confirm_token')
    .unique()
    .on('alert_channels')
    .column('confirm_token_hash')
    .where(sql.ref('confirm_token_hash'), 'is not', null)
    .execute();
  await db.schema
    .createTable('alert_channel_sites')
    .addColumn('channel_id', 'bigint', (column) =>
      column.notNull().references('alert_channels.id').onDelete('cascade'),
    )
    .addColumn('monitor_id', 'bigint', (column) =>
      column.notNull().references('monitors.id').onDelete('cascade'),
    )
    .addPrimaryKeyConstraint('alert_channel_sites_pkey', [
      'channel_id',
      'monitor_id',
    ])
    .execute();
  await db.schema
    .createIndex('alert_channel_sites_monitor_id')
    .on('alert_channel_sites')
    .column('monitor_id')
    .execute();
}
