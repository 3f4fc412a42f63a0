/**
 * The tokens of magic links (issue 37; ADR-0096): made
 * when the mail is sent, stored as their SHA-256, spent once, expiring
 * after 7 days (confirming an address) or 15 minutes (signing in). One live
 * token per mail: a retried send replaces the token of an attempt that
 * never arrived. Never edited once run; a change is a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('link_tokens')
    .addColumn('token_hash', 'bytea', (column) => column.primaryKey())
    .addColumn('purpose', 'text', (column) => column.notNull())
    .addColumn('account_id', 'uuid', (column) =>
      column.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('outbox_id', 'bigint', (column) =>
      column.unique().references('mail_outbox.id').onDelete('set null'),
    )
    .addColumn('created_at', 'timestamptz', (column) =>
      column.notNull().defaultTo(sql`now()`),
    )
    .addColumn('expires_at', 'timestamptz', (column) => column.notNull())
    .addColumn('used_at', 'timestamptz')
    .addCheckConstraint(
      'link_tokens_hash_length',
      sql`octet_length(token_hash) = 32`,
    )
    .addCheckConstraint(
      'link_tokens_purpose',
      sql`purpose in ('confirm', 'signin')`,
    )
    .execute();
  await db.schema
    .createIndex('link_tokens_account_id')
    .on('link_tokens')
    .column('account_id')
    .execute();
  await db.schema
    .createIndex('link_tokens_expires_at')
    .on('link_tokens')
    .column('expires_at')
    .execute();
}
