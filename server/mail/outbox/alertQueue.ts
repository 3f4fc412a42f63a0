/**
 * The outbox's alerts as other features' statements write them (D105,
 * D127): the mail owns `mail_outbox`, so the statement that moves a
 * site's state queues its alerts through these CTE bodies, in its own
 * transaction, and the statement that removes a site drops its alerts not
 * yet sent. An alert goes only to a confirmed address (D105).
 */
import { sql, type RawBuilder } from 'kysely';

/**
 * A data-modifying CTE's body that queues the alerts `owed` selects, each
 * to its account's address, when that address is confirmed.
 *
 * @param owed a query of three columns: the mail's kind (`down`, `up`,
 *   `flapping`, `steady`), the account's id, the details (jsonb)
 * @returns SQL returning `account_id` for each alert queued
 */
export function queueAlerts(owed: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`insert into mail_outbox (kind, account_id, recipient, details)
    select owed.kind, accounts.id, accounts.email, owed.details
      from (${owed}) as owed (kind, account_id, details)
      join accounts on accounts.id = owed.account_id
     where accounts.confirmed_at is not null
    returning account_id`;
}

/**
 * A data-modifying CTE's body that deletes the alerts not yet sent (state
 * `pending`) about the monitors `monitorIds` selects, for a statement that
 * removes them. It returns nothing.
 *
 * @param monitorIds a query of one column: monitor ids, as text
 */
export function unsentAlerts(
  monitorIds: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`delete from mail_outbox
     where state = 'pending'
       and kind in ('down', 'up', 'flapping', 'steady')
       and details->>'monitorId' in (${monitorIds})`;
}
