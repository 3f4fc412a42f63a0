/**
 * A confirmed address (issue 37; ADR-0098, ADR-0099): when the
 * owner of an account's address proved it by a magic link, when the
 * newsletter they asked for took effect (double opt-in), and by when an
 * unconfirmed account is deleted so that its address is free again.
 *
 * Accounts made before this migration keep `confirm_by` NULL: they are
 * never deleted for it, and no mail goes out to them on deploy. Never
 * edited once run; a change is a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('confirmed_at', 'timestamptz')
    .addColumn('newsletter_confirmed_at', 'timestamptz')
    .addColumn('confirm_by', 'timestamptz')
    .execute();
  // Set after the column exists, so that the rows already there keep NULL.
  await sql`alter table accounts alter column confirm_by set default now() + interval '7 days'`.execute(
    db,
  );
  await sql`alter table accounts add constraint accounts_newsletter_confirmed
    check (newsletter_confirmed_at is null or (newsletter and confirmed_at is not null))`.execute(
    db,
  );
  await db.schema
    .createIndex('accounts_unconfirmed_confirm_by')
    .on('accounts')
    .column('confirm_by')
    .where(sql.ref('confirmed_at'), 'is', null)
    .execute();
}
