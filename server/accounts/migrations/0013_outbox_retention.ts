/**
 * Outbox rows are deleted once their retention ends (issue 58; ADR-0089):
 * sent or given up more than `OUTBOX_ROWS_KEPT_DAYS` ago. Their copies are
 * dropped after 7 days (the partial index `mail_outbox_copies`, on rows
 * that still hold an address); this index finds the rows themselves, which
 * the copies' index no longer covers once the address is gone. Never
 * edited once run; a change is a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('mail_outbox_finished')
    .on('mail_outbox')
    .expression(sql`coalesce(sent_at, failed_at)`)
    .where(sql.ref('state'), 'in', sql`('sent', 'failed')`)
    .execute();
}
