/**
 * Where a site's events go (ADR-0129): the monitor queues each event once, in
 * the statement that moves the site's state; this feature fans it out, in
 * that statement, to the account's own address and to each of its
 * channels that alerts for the site, one delivery each, in the outbox
 * (server/outbox/). And when a channel's delivery dies, or arrives again,
 * the channel says so: failing since when, with the last error, and its
 * owner gets one mail about it.
 */
import { sql, type RawBuilder, type Transaction } from 'kysely';
import { accountConfirmed, provenAddress } from '../accounts/index';
import {
  insertDeliveries,
  type DeadDelivery,
  type OutboxTables,
} from '../outbox/index';

/** How long an alert's delivery is retried before it is dead (issue 60). */
export const ALERT_DEADLINE = '1 hour';
/** How long a channel's failure notice is retried (a mail to its owner). */
const NOTICE_DEADLINE = '72 hours';

/** The kind of the mail that tells an owner a channel fails. */
export const CHANNEL_FAILING_KIND = 'channel.failing';

/** Where a channel's one-click unsubscribe link points (RFC 8058). */
export const UNSUBSCRIBE_PATH = '/channels/unsubscribe';

/**
 * The fan-out of a site's events (the monitor's `onSiteEvents` write):
 * the body of a data-modifying CTE over the monitor's CTE `owed`.
 *
 * - the account's own address, once proven (ADR-0105), unless its owner
 *   stopped the site's alert mail (ADR-0124: `owed.owner_mail`);
 * - each channel of a proven account that is confirmed, not disabled, and
 *   alerts for every site or for this one; an e-mail channel's delivery
 *   carries its one-click unsubscribe link.
 *
 * Each delivery's stream is the site's and the destination's, so that a
 * "back up" never overtakes its "down" on one channel.
 *
 * @param publicUrl `PUBLIC_URL`, for the unsubscribe links
 */
export function siteEventsFanOut(
  publicUrl: string,
): (owed: RawBuilder<unknown>) => RawBuilder<unknown> {
  return (owed) =>
    insertDeliveries(sql`
    select owed.kind, 'email', owed.account_id, null::bigint,
           ${provenAddress(sql`owed.account_id`)}, null::text,
           'site:' || owed.monitor_id || '|owner', owed.details,
           now() + ${ALERT_DEADLINE}::interval
      from ${owed} as owed
     where owed.owner_mail
       and ${accountConfirmed(sql`owed.account_id`)}
    union all
    select owed.kind, channel.kind, owed.account_id, channel.id,
           channel.target, channel.secret,
           'site:' || owed.monitor_id || '|channel:' || channel.id,
           case when channel.kind = 'email'
             then owed.details || jsonb_build_object('unsubscribeUrl',
               ${publicUrl} || ${UNSUBSCRIBE_PATH} || '?c=' || channel.id
                 || '&t=' || channel.unsubscribe_token)
             else owed.details end,
           now() + ${ALERT_DEADLINE}::interval
      from ${owed} as owed
      join alert_channels as channel on channel.account_id = owed.account_id
     where channel.confirmed_at is not null and channel.disabled_at is null
       and (channel.all_sites or exists (
             select 1 from alert_channel_sites as narrowed
              where narrowed.channel_id = channel.id
                and narrowed.monitor_id = owed.monitor_id))
       and ${accountConfirmed(sql`owed.account_id`)}`);
}

/**
 * The outbox's `onDead` for channels: a channel whose delivery died is
 * failing since now (if it was not already), with the delivery's error;
 * a 410 disables it. Its owner gets one mail when it starts failing, or is
 * disabled, in the same transaction: not one per dead delivery.
 */
export async function channelsDied(
  trx: Transaction<OutboxTables>,
  dead: readonly DeadDelivery[],
): Promise<void> {
  for (const delivery of dead) {
    if (delivery.channelId === null) continue;
    await sql`
      with old as (
        select id, kind, failing_since, disabled_at from alert_channels
         where id = ${delivery.channelId}::bigint
           and account_id = ${delivery.accountId}::uuid
         for update),
      marked as (
        update alert_channels
           set failing_since = coalesce(alert_channels.failing_since, now()),
               last_error = ${delivery.error},
               disabled_at = case when ${delivery.gone}
                 then coalesce(alert_channels.disabled_at, now())
                 else alert_channels.disabled_at end,
               disabled_reason = case when ${delivery.gone}
                 then coalesce(alert_channels.disabled_reason, 'gone')
                 else alert_channels.disabled_reason end
          from old where alert_channels.id = old.id
        returning alert_channels.id)
      ${insertDeliveries(sql`
        select ${CHANNEL_FAILING_KIND}, 'email', ${delivery.accountId}::uuid,
               null::bigint, ${provenAddress(sql`${delivery.accountId}::uuid`)},
               null::text, 'channel:' || old.id || '|owner',
               jsonb_build_object('channelId', old.id::text,
                 'channelKind', old.kind, 'error', ${delivery.error}::text,
                 'gone', ${delivery.gone}::boolean,
                 'at', now()),
               now() + ${NOTICE_DEADLINE}::interval
          from old join marked on marked.id = old.id
         where (old.failing_since is null
                or (${delivery.gone} and old.disabled_at is null))
           and ${accountConfirmed(sql`${delivery.accountId}::uuid`)}`)}`.execute(
      trx,
    );
  }
}

/**
 * The outbox's `onSent` for channels: a failing channel whose delivery
 * arrived works again.
 */
export async function channelsWork(
  trx: Transaction<OutboxTables>,
  channelIds: readonly string[],
): Promise<void> {
  await sql`update alert_channels
               set failing_since = null, last_error = null
             where id in (${sql.join(channelIds.map((id) => sql`${id}::bigint`))})
               and failing_since is not null`.execute(trx);
}
