/**
 * The transactional outbox (issue 37; ADR-0095): one row
 * per mail, written by the statement that causes it (a sign-up, a sign-in
 * request, a resend) and delivered by the mail sender (the table and its
 * sender gave way to the outbox's deliveries in ./0020_mails_in_outbox.ts).
 * A row holds no secret: the link's token is made when the mail is sent.
 *
 * `recipient` and the copy of what was sent (its subject and plain text:
 * the HTML part says the same) are dropped 7 days after the
 * mail was sent or given up (ADR-0089). Never edited once run; a change is a
 * new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'bigint', (column) =>
      column.primaryKey().generatedAlwaysAsIdentity(),
    )
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('account_id', 'uuid', (column) =>
      column.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('recipient', 'text')
    .addColumn('state', 'text', (column) =>
      column.notNull().defaultTo('pending'),
    )
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (column) =>
      column.notNull().defaultTo(sql`now()`),
    )
    .addColumn('lease_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (column) =>
      column.notNull().defaultTo(sql`now()`),
    )
    .addColumn('sent_at', 'timestamptz')
    .addColumn('failed_at', 'timestamptz')
    .addColumn('delivered_via', 'text')
    .addColumn('last_error', 'text')
    .addColumn('subject', 'text')
    .addColumn('text_body', 'text')
    .addCheckConstraint('mail_outbox_kind', sql`kind in ('confirm', 'signin')`)
    .addCheckConstraint(
      'mail_outbox_state',
      sql`state in ('pending', 'sending', 'sent', 'failed')`,
    )
    .addCheckConstraint('mail_outbox_attempts', sql`attempts >= 0`)
    .addCheckConstraint(
      'mail_outbox_recipient',
      sql`char_length(recipient) <= 254 and (recipient is not null or state in ('sent', 'failed'))`,
    )
    .addCheckConstraint(
      'mail_outbox_sent',
      sql`(state = 'sent') = (sent_at is not null)`,
    )
    .addCheckConstraint(
      'mail_outbox_failed',
      sql`(state = 'failed') = (failed_at is not null)`,
    )
    .addCheckConstraint(
      'mail_outbox_delivered_via',
      sql`delivered_via in ('smtp', 'file')`,
    )
    .addCheckConstraint(
      'mail_outbox_last_error',
      sql`char_length(last_error) <= 200`,
    )
    .execute();
  // The sender's claim: what is due, or whose lease has ended.
  await db.schema
    .createIndex('mail_outbox_due')
    .on('mail_outbox')
    .column('next_attempt_at')
    .where(sql.ref('state'), 'in', sql`('pending', 'sending')`)
    .execute();
  // The cascade when an account is deleted.
  await db.schema
    .createIndex('mail_outbox_account_id')
    .on('mail_outbox')
    .column('account_id')
    .execute();
  // Dropping the copies past their 7 days.
  await db.schema
    .createIndex('mail_outbox_copies')
    .on('mail_outbox')
    .expression(sql`coalesce(sent_at, failed_at)`)
    .where(sql.ref('recipient'), 'is not', null)
    .execute();
}
