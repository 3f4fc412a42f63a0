/**
 * Accounts and their one-time sign-in tokens (ADR-0044, ADR-0045).
 * A migration is never edited once it has run
 * anywhere: a change is a new file. The limits are written out here, not
 * imported, so that this file keeps meaning what it meant when it ran;
 * tests/server/accounts.test.ts checks that they match the API's
 * (common/fieldLimits.ts).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'uuid', (column) =>
      column.primaryKey().defaultTo(sql`gen_random_uuid()`),
    )
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('site_url', 'text')
    .addColumn('newsletter', 'boolean', (column) => column.notNull())
    .addColumn('campaign', 'text')
    .addColumn('created_at', 'timestamptz', (column) =>
      column.notNull().defaultTo(sql`now()`),
    )
    // char_length counts characters (code points), as the API does.
    .addCheckConstraint(
      'accounts_name_length',
      sql`char_length(name) between 1 and 200`,
    )
    .addCheckConstraint('accounts_email_length', sql`char_length(email) <= 254`)
    .addCheckConstraint(
      'accounts_site_url_length',
      sql`char_length(site_url) <= 2048`,
    )
    .addCheckConstraint(
      'accounts_campaign_length',
      sql`char_length(campaign) <= 200`,
    )
    .execute();
  // One account per address, compared without regard to case: the database
  // decides, so two simultaneous sign-ups cannot both pass a check.
  await db.schema
    .createIndex('accounts_email_key')
    .on('accounts')
    .unique()
    .expression(sql`lower(email)`)
    .execute();

  await db.schema
    .createTable('one_time_tokens')
    .addColumn('token_hash', 'bytea', (column) => column.primaryKey())
    .addColumn('sid', 'uuid', (column) => column.notNull().unique())
    .addColumn('account_id', 'uuid', (column) =>
      column.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'timestamptz', (column) =>
      column.notNull().defaultTo(sql`now()`),
    )
    .addColumn('expires_at', 'timestamptz', (column) => column.notNull())
    .addColumn('used_at', 'timestamptz')
    .addCheckConstraint(
      'one_time_tokens_hash_length',
      sql`octet_length(token_hash) = 32`,
    )
    .execute();
  await db.schema
    .createIndex('one_time_tokens_account_id')
    .on('one_time_tokens')
    .column('account_id')
    .execute();
}
