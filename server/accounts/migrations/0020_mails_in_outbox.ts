/**
 * The mails move into the outbox of notifications (issue 60; ADR-0129): every
 * row of `mail_outbox`, link mails and alerts, sent or waiting, becomes a
 * delivery of the same mail, kept as it was (what was sent, when, the
 * error), and the waiting ones are due at once; a link's token now names
 * the delivery that carries it. Then `mail_outbox` goes. The tokens of
 * mails claimed but not sent when this ran lose their mail (a retry makes
 * a new token; the old one works until it expires). Never edited once
 * run; a change is a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`insert into deliveries (kind, channel, account_id, target, stream,
                                    payload, state, attempts, next_attempt_at,
                                    deadline_at, created_at, sent_at, dead_at,
                                    last_error, subject, text_body)
    select case when kind in ('confirm', 'signin') then 'account.' || kind
                else 'site.' || kind end,
           'email', account_id, recipient,
           case when kind in ('confirm', 'signin')
                then 'account:' || account_id || '|' || kind
                else 'site:' || coalesce(details->>'monitorId', '') || '|owner'
           end,
           coalesce(details, '{}'::jsonb),
           case state when 'failed' then 'dead' when 'sending' then 'pending'
                else state end,
           attempts,
           case when state in ('pending', 'sending') then now()
                else next_attempt_at end,
           case when kind in ('confirm', 'signin')
                then greatest(created_at + interval '72 hours', now())
                else now() + interval '1 hour' end,
           created_at, sent_at, failed_at, last_error, subject, text_body
      from mail_outbox
     order by id`.execute(db);
  await sql`alter table link_tokens
              drop constraint link_tokens_outbox_id_fkey`.execute(db);
  await sql`update link_tokens set outbox_id = null
             where outbox_id is not null`.execute(db);
  await sql`alter table link_tokens
              add constraint link_tokens_outbox_id_fkey
              foreign key (outbox_id) references deliveries (id)
              on delete set null`.execute(db);
  await db.schema.dropTable('mail_outbox').execute();
}
