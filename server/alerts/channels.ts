/**
 * The alert channels' repository (issue 60; ADR-0129): every statement about
 * `alert_channels` and `alert_channel_sites`. Each statement about one
 * channel names its account as well as the channel, so that another
 * account's channel is "none" (a 404 on the pages), never touched. The
 * e-mail confirmation's and the one-click unsubscribe's statements are the
 * exceptions: their token is the proof, and their owner has no session.
 *
 * - **Limits**: {@link CHANNELS_PER_ACCOUNT} channels per account, of
 *   which at most {@link EMAIL_CHANNELS_PER_ACCOUNT} e-mail addresses
 *   (issue 60: "up to 5" besides the owner's), counted under an advisory
 *   lock per account so that two adds at once cannot pass them.
 * - **Confirmed**: an e-mail channel gets a confirmation mail, queued in
 *   the statement that makes it, and nothing else until its link is used
 *   (within {@link CONFIRM_LINK_HOURS} of its mail, which is retried no
 *   longer: a mail sent after its link died would be no use); every other
 *   kind is confirmed when it is made (its owner typed the URL of a thing
 *   they control). The link can be sent again, a new one that replaces
 *   it, at most once a minute an address and, with the adds' mails,
 *   {@link CONFIRM_MAILS_PER_DAY} times a day an account.
 * - **Removed** with its deliveries not yet sent, in one statement.
 *
 * Every function raises DatabaseUnavailableError (server/db/unavailable.ts)
 * when the database fails.
 */
import { timingSafeEqual } from 'node:crypto';
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { newSecret, provenAddress, secretHash } from '../accounts/index';
import { DatabaseUnavailableError, unlessUnavailable } from '../db/unavailable';
import {
  deliveriesQueued,
  insertDeliveries,
  newWebhookSecret,
  unsentDeliveries,
  type ChannelKind,
  type OutboxTables,
} from '../outbox/index';
import { CHANNEL_CONFIRM_KIND, CONFIRM_LINK_HOURS } from './channelNotices';
import type { AlertsTables } from './tables';

/** The most channels an account has, every kind together (issue 60). */
export const CHANNELS_PER_ACCOUNT = 10;
/** The most e-mail channels among them, besides the owner's address (issue 60). */
export const EMAIL_CHANNELS_PER_ACCOUNT = 5;
/**
 * The most confirmation mails an account's added addresses are sent in
 * 24 hours, all together, adds and "Send the link again" alike: the day's
 * ceiling of the account's own link mails (ADR-0097), so that no account can
 * make a stranger's inbox, or our sender's name, a channel of its own.
 */
export const CONFIRM_MAILS_PER_DAY = 10;
/** The least time between two confirmation mails to one address (s; ADR-0097's cooldown). */
export const CONFIRM_RESEND_GAP_SECONDS = 60;
/** The least time between two test alerts of one channel (s). */
export const TEST_GAP_SECONDS = 10;

/** A channel id as the URLs carry it: a positive bigint, in digits. */
const CHANNEL_ID = /^[1-9][0-9]{0,18}$/;

/** Whether `id` can name a channel at all (anything else names none). */
export function isChannelId(id: string): boolean {
  return CHANNEL_ID.test(id);
}

/** Which sites a channel alerts for. */
export interface SitesChoice {
  /** Alerts for every site of the account; false: for `siteIds` only. */
  allSites: boolean;
  /** The account's own sites it alerts for (ignored with `allSites`). */
  siteIds: readonly string[];
}

/** A channel as the form made it. */
export interface NewChannel extends SitesChoice {
  kind: ChannelKind;
  /** The address, or the URL as the WHATWG parser writes it. */
  target: string;
}

/**
 * Why a channel was not added: the account has its most channels, or its
 * most e-mail addresses; it has this one already; a chosen site is gone;
 * its confirmation mails of the day are spent.
 */
export type AddRefusal =
  'limit' | 'emailLimit' | 'duplicate' | 'sites' | 'mailLimit';

/**
 * What "Send the link again" did: sent a new link; or nothing, since the
 * channel waits for no confirmation (confirmed, off, or not an address),
 * a link went to it within {@link CONFIRM_RESEND_GAP_SECONDS}, or the
 * account's confirmation mails of the day are spent.
 */
export type ResendOutcome = 'sent' | 'notWaiting' | 'cooldown' | 'limited';

/** Why a channel is off. */
export type DisabledReason = 'gone' | 'unsubscribed';

/** A channel as `/` lists it. */
export interface ChannelSummary {
  /** A bigint, as text. */
  id: string;
  kind: ChannelKind;
  /** The address or URL: a secret, never shown whole once saved. */
  target: string;
  /** Its address proven (e-mail), or made (the other kinds). */
  confirmed: boolean;
  failingSince: Date | null;
  lastError: string | null;
  disabledAt: Date | null;
  disabledReason: DisabledReason | null;
  allSites: boolean;
}

/** A channel as its page shows it. */
export interface ChannelView extends ChannelSummary {
  /** The sites it alerts for (bigints, as text), when narrowed. */
  siteIds: string[];
  /**
   * A webhook's signing secret, on the first view of its page only (this
   * view marked it shown); null on every other view and for other kinds.
   */
  freshSecret: string | null;
  lastTestAt: Date | null;
  lastTestResult: string | null;
  /** An address waiting for its confirmation whose link is past its hours. */
  linkExpired: boolean;
}

/** What a test alert may be sent to, once claimed. */
export type TestClaim =
  | {
      state: 'claimed';
      kind: ChannelKind;
      target: string;
      secret: string | null;
      unsubscribeToken: string;
    }
  | { state: 'unconfirmed' }
  | { state: 'limited' };

const SUMMARY_COLUMNS = sql`channel.id, channel.kind, channel.target,
  channel.confirmed_at, channel.failing_since, channel.last_error,
  channel.disabled_at, channel.disabled_reason, channel.all_sites`;

interface SummaryRow {
  id: string | number;
  kind: ChannelKind;
  target: string;
  confirmed_at: Date | null;
  failing_since: Date | null;
  last_error: string | null;
  disabled_at: Date | null;
  disabled_reason: DisabledReason | null;
  all_sites: boolean;
}

function summaryOf(row: SummaryRow): ChannelSummary {
  return {
    // A bigint, which the engines read as a number or as text.
    id: String(row.id),
    kind: row.kind,
    target: row.target,
    confirmed: row.confirmed_at !== null,
    failingSince: row.failing_since,
    lastError: row.last_error,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
    allSites: row.all_sites,
  };
}

/**
 * Takes the account's lock for the rest of the transaction: its channels'
 * and its confirmation mails' counts, and what they allow, are one at a
 * time.
 */
async function lockAccount(
  trx: Transaction<AlertsTables & OutboxTables>,
  accountId: string,
) {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`alert-channels:${accountId}`}, 0))`.execute(
    trx,
  );
}

/**
 * How many confirmation mails the account's added addresses were sent in
 * the last 24 hours, or will be (queued): an SQL count. A mail dropped
 * unsent (its channel removed, its link sent again) is no mail; a mail
 * sent stays counted when its channel is removed (the outbox keeps its
 * row for 30 days).
 */
function confirmMailsOfTheDay(accountId: string) {
  return deliveriesQueued(accountId, CHANNEL_CONFIRM_KIND, '24 hours');
}

/** Whether a link made at `sentAt` (an SQL timestamp) works no more; null for null. */
function linkDead(sentAt: RawBuilder<unknown>) {
  return sql<boolean>`(${sentAt} <= now() - make_interval(hours => ${CONFIRM_LINK_HOURS}))`;
}

/**
 * A data-modifying CTE, `confirmation`, that queues the confirmation mail
 * of the address channel of the CTE `channel` (its `id`), retried until
 * its link dies, never after. It carries no token: the outbox's renderer
 * mints one as it sends ({@link ChannelsRepository.mintConfirmations}), so
 * no working link is ever stored, only its SHA-256 on the channel.
 */
function confirmationMail(
  channel: 'made' | 'renewed',
  accountId: string,
  address: string,
  owner: string,
) {
  const from = sql.table(channel);
  return sql`confirmation as (${insertDeliveries(sql`
    select ${CHANNEL_CONFIRM_KIND}, 'email', ${accountId}::uuid,
           ${from}.id, ${address}, null,
           'channel:' || ${from}.id || '|confirm',
           jsonb_build_object('channelId', ${from}.id::text,
                              'owner', ${owner}::text),
           now() + make_interval(hours => ${CONFIRM_LINK_HOURS})
      from ${from}`)})`;
}

/**
 * A data-modifying CTE, after a comma, that narrows the channel of the
 * CTE `channel` (its `id`) to `siteIds` (those it has already kept);
 * nothing for no site.
 */
function sitesAdded(channel: 'made' | 'edited', siteIds: readonly string[]) {
  if (siteIds.length === 0) return sql``;
  const from = sql.table(channel);
  return sql`, sites_added as (
    insert into alert_channel_sites (channel_id, monitor_id)
    select ${from}.id, site.id
      from ${from} cross join (values ${sql.join(
        siteIds.map((id) => sql`(${id}::bigint)`),
      )}) as site (id)
    on conflict do nothing)`;
}

/** Whether the database refused a row for a key it references (SQLSTATE 23503). */
function isForeignKeyViolation(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === '23503'
  );
}

/** Whether two tokens are the same, in time that does not depend on where they differ. */
function sameToken(given: string, kept: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(kept, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The repository over one database (typed by this feature's tables and
 * the outbox's, whose deliveries its statements queue and delete: ADR-0128).
 */
export function channelsRepository(db: Kysely<AlertsTables & OutboxTables>) {
  /** A channel's row by its id and unsubscribe token, compared in constant time. */
  async function unsubscribable(
    channelId: string,
    token: string,
  ): Promise<{ target: string; disabled: boolean } | undefined> {
    if (!isChannelId(channelId)) return undefined;
    const row = await unlessUnavailable(() =>
      db
        .selectFrom('alert_channels')
        .select(['target', 'unsubscribe_token', 'disabled_at'])
        .where('id', '=', channelId)
        .where('kind', '=', 'email')
        .executeTakeFirst(),
    );
    if (!row || !sameToken(token, row.unsubscribe_token)) return undefined;
    return { target: row.target, disabled: row.disabled_at !== null };
  }

  return {
    /**
     * Adds a channel, in one transaction under the account's lock: the
     * limits and the duplicate are counted, then one statement makes the
     * channel (a webhook with a new secret; every kind but e-mail
     * confirmed now), its sites when narrowed, and, for an e-mail
     * address, its confirmation mail in the outbox (its link's token is
     * minted when it is sent). The caller wakes the outbox.
     *
     * @param owner the owner's address, masked, for the confirmation mail
     * @returns the new channel's id, or why it was not added
     */
    async add(
      accountId: string,
      channel: NewChannel,
      owner: string,
    ): Promise<{ id: string } | AddRefusal> {
      const email = channel.kind === 'email';
      const secret = channel.kind === 'webhook' ? newWebhookSecret() : null;
      const siteIds = channel.allSites ? [] : channel.siteIds;
      const narrowed = sitesAdded('made', siteIds);
      try {
        return await db.transaction().execute(async (trx) => {
          // The counts and the insert see one account: a second add waits.
          await lockAccount(trx, accountId);
          const { rows: counted } = await sql<{
            total: string | number;
            emails: string | number;
            same: string | number;
            mails: string | number;
          }>`select ${confirmMailsOfTheDay(accountId)} as mails,
                    count(*) as total,
                    count(*) filter (where kind = 'email') as emails,
                    count(*) filter (where kind = ${channel.kind}::text
                      and (target = ${channel.target}::text
                           or (kind = 'email'
                               and lower(target) = lower(${channel.target}::text))))
                      as same
               from alert_channels where account_id = ${accountId}::uuid`.execute(
            trx,
          );
          const counts = counted[0];
          if (counts && Number(counts.same) > 0) return 'duplicate';
          if (counts && Number(counts.total) >= CHANNELS_PER_ACCOUNT) {
            return 'limit';
          }
          if (email && counts) {
            if (Number(counts.emails) >= EMAIL_CHANNELS_PER_ACCOUNT) {
              return 'emailLimit';
            }
            if (Number(counts.mails) >= CONFIRM_MAILS_PER_DAY) {
              return 'mailLimit';
            }
          }
          const confirmation = email
            ? sql`, ${confirmationMail('made', accountId, channel.target, owner)}`
            : sql``;
          const { rows } = await sql<{ id: string | number }>`
            with made as (
              insert into alert_channels (account_id, kind, target, secret,
                                          all_sites, confirmed_at,
                                          confirm_sent_at,
                                          unsubscribe_token)
              values (${accountId}::uuid, ${channel.kind}, ${channel.target},
                      ${secret}, ${channel.allSites},
                      ${email ? null : sql`now()`},
                      ${email ? sql`now()` : null},
                      ${newSecret()})
              returning id)
            ${narrowed}${confirmation}
            select id from made`.execute(trx);
          const made = rows[0];
          if (!made) throw new Error('the channel was not made');
          return { id: String(made.id) };
        });
      } catch (error) {
        // A chosen site removed meanwhile (or the account deleted).
        if (isForeignKeyViolation(error)) return 'sites';
        throw new DatabaseUnavailableError(error);
      }
    },

    /**
     * The account's channels, oldest first, each with the number of
     * sites it is narrowed to, and the account's own address once it is
     * proven (the accounts' expression: ADR-0128).
     */
    async list(accountId: string): Promise<{
      owner: string | null;
      channels: (ChannelSummary & { siteCount: number })[];
    }> {
      const [channels, owner] = await unlessUnavailable(() =>
        Promise.all([
          sql<SummaryRow & { site_count: string | number }>`
            select ${SUMMARY_COLUMNS},
                   (select count(*) from alert_channel_sites as narrowed
                     where narrowed.channel_id = channel.id) as site_count
              from alert_channels as channel
             where channel.account_id = ${accountId}::uuid
             order by channel.id`.execute(db),
          sql<{
            email: string | null;
          }>`select ${provenAddressOf(accountId)} as email`.execute(db),
        ]),
      );
      return {
        owner: owner.rows[0]?.email ?? null,
        channels: channels.rows.map((row) => ({
          ...summaryOf(row),
          siteCount: Number(row.site_count),
        })),
      };
    },

    /**
     * One channel of the account, for its page. A webhook's secret is in
     * the answer on the first view only: the statement that reads it
     * marks it shown. Without `reveal` (a refused form shown again), it is
     * neither read nor marked.
     *
     * @returns undefined when the account has no such channel
     */
    async view(
      accountId: string,
      channelId: string,
      reveal = true,
    ): Promise<ChannelView | undefined> {
      if (!isChannelId(channelId)) return undefined;
      const { rows } = await unlessUnavailable(() =>
        sql<
          SummaryRow & {
            fresh_secret: string | null;
            site_ids: unknown;
            last_test_at: Date | null;
            last_test_result: string | null;
            link_expired: boolean;
          }
        >`with shown as (
            update alert_channels set secret_shown_at = now()
             where id = ${channelId}::bigint
               and account_id = ${accountId}::uuid
               and secret is not null and secret_shown_at is null
               and ${reveal}::boolean
            returning id, secret)
          select ${SUMMARY_COLUMNS}, channel.last_test_at,
                 channel.last_test_result, shown.secret as fresh_secret,
                 coalesce(channel.confirmed_at is null
                          and ${linkDead(sql`channel.confirm_sent_at`)},
                          false) as link_expired,
                 coalesce((select json_agg(narrowed.monitor_id::text
                                           order by narrowed.monitor_id)
                             from alert_channel_sites as narrowed
                            where narrowed.channel_id = channel.id),
                          '[]'::json) as site_ids
            from alert_channels as channel
            left join shown on shown.id = channel.id
           where channel.id = ${channelId}::bigint
             and channel.account_id = ${accountId}::uuid`.execute(db),
      );
      const row = rows[0];
      if (!row) return undefined;
      const ids: unknown =
        typeof row.site_ids === 'string'
          ? JSON.parse(row.site_ids)
          : row.site_ids;
      return {
        ...summaryOf(row),
        siteIds: Array.isArray(ids) ? ids.map(String) : [],
        freshSecret: row.fresh_secret,
        lastTestAt: row.last_test_at,
        lastTestResult: row.last_test_result,
        linkExpired: row.link_expired,
      };
    },

    /**
     * Changes the sites a channel of the account alerts for, in one
     * statement: every site (its list emptied), or those given (the
     * others dropped from its list, the new ones added). Its kind and
     * target stay: another target is another channel.
     *
     * @returns whether the account had it, or `sites` when a site given
     *   was removed meanwhile (nothing changed)
     */
    async editSites(
      accountId: string,
      channelId: string,
      choice: SitesChoice,
    ): Promise<boolean | 'sites'> {
      if (!isChannelId(channelId)) return false;
      const siteIds = choice.allSites ? [] : choice.siteIds;
      const kept =
        siteIds.length === 0
          ? sql``
          : sql`and narrowed.monitor_id not in (${sql.join(
              siteIds.map((id) => sql`${id}::bigint`),
            )})`;
      try {
        const { rows } = await sql<{ id: string | number }>`
          with edited as (
            update alert_channels set all_sites = ${choice.allSites}
             where id = ${channelId}::bigint
               and account_id = ${accountId}::uuid
            returning id),
          dropped as (
            delete from alert_channel_sites as narrowed
             using edited
             where narrowed.channel_id = edited.id ${kept})
          ${sitesAdded('edited', siteIds)}
          select id from edited`.execute(db);
        return rows.length > 0;
      } catch (error) {
        // A chosen site removed meanwhile.
        if (isForeignKeyViolation(error)) return 'sites';
        throw new DatabaseUnavailableError(error);
      }
    },

    /**
     * Removes a channel of the account and, in the same statement, its
     * deliveries not yet sent (the outbox's `unsentDeliveries`).
     *
     * @returns whether the account had it
     */
    async remove(accountId: string, channelId: string): Promise<boolean> {
      if (!isChannelId(channelId)) return false;
      const { rows } = await unlessUnavailable(() =>
        sql<{ id: string | number }>`
          with gone as (
            delete from alert_channels
             where id = ${channelId}::bigint
               and account_id = ${accountId}::uuid
            returning id),
          unsent as (${unsentDeliveries({ channelIds: sql`select id from gone` })})
          select id from gone`.execute(db),
      );
      return rows.length > 0;
    },

    /**
     * Claims a test alert of a channel of the account: at most one per
     * {@link TEST_GAP_SECONDS} (two presses at once send one), and none
     * to an e-mail address not confirmed yet. The claim forgets the last
     * test's answer; {@link recordTest} writes the new one.
     *
     * @returns the channel to send to, why not, or undefined when the
     *   account has no such channel
     */
    async claimTest(
      accountId: string,
      channelId: string,
    ): Promise<TestClaim | undefined> {
      if (!isChannelId(channelId)) return undefined;
      const { rows } = await unlessUnavailable(() =>
        sql<{
          kind: ChannelKind;
          target: string;
          secret: string | null;
          unsubscribe_token: string;
          confirmed: boolean;
          claimed: boolean;
        }>`with claimed as (
            update alert_channels
               set last_test_at = now(), last_test_result = null
             where id = ${channelId}::bigint
               and account_id = ${accountId}::uuid
               and confirmed_at is not null
               and (last_test_at is null
                    or last_test_at <= now() - make_interval(secs => ${TEST_GAP_SECONDS}))
            returning id)
          select channel.kind, channel.target, channel.secret,
                 channel.unsubscribe_token,
                 channel.confirmed_at is not null as confirmed,
                 exists (select 1 from claimed) as claimed
            from alert_channels as channel
           where channel.id = ${channelId}::bigint
             and channel.account_id = ${accountId}::uuid`.execute(db),
      );
      const row = rows[0];
      if (!row) return undefined;
      if (!row.confirmed) return { state: 'unconfirmed' };
      if (!row.claimed) return { state: 'limited' };
      return {
        state: 'claimed',
        kind: row.kind,
        target: row.target,
        secret: row.secret,
        unsubscribeToken: row.unsubscribe_token,
      };
    },

    /**
     * "Send the link again": a new confirmation link for an address of the
     * account waiting for its confirmation, in one transaction under the
     * account's lock (the adds' count of the day's mails): the channel's
     * token cleared (the old link works no more) and its link's hours
     * started afresh, the old mail dropped if it is not sent yet (one
     * being sent, if retried, is superseded: see
     * {@link mintConfirmations}), and the new one queued. The caller
     * wakes the outbox.
     *
     * @param owner the owner's address, masked, for the mail
     * @returns what it did, or undefined when the account has no such
     *   channel
     */
    async resendConfirmation(
      accountId: string,
      channelId: string,
      owner: string,
    ): Promise<ResendOutcome | undefined> {
      if (!isChannelId(channelId)) return undefined;
      return unlessUnavailable(() =>
        db.transaction().execute(async (trx) => {
          await lockAccount(trx, accountId);
          const { rows } = await sql<{
            target: string;
            waiting: boolean;
            cooling: boolean;
            mails: string | number;
          }>`select target,
                    kind = 'email' and confirmed_at is null
                      and disabled_at is null as waiting,
                    coalesce(confirm_sent_at > now() - make_interval(
                               secs => ${CONFIRM_RESEND_GAP_SECONDS}),
                             false) as cooling,
                    ${confirmMailsOfTheDay(accountId)} as mails
               from alert_channels
              where id = ${channelId}::bigint
                and account_id = ${accountId}::uuid`.execute(trx);
          const row = rows[0];
          if (!row) return undefined;
          if (!row.waiting) return 'notWaiting';
          if (row.cooling) return 'cooldown';
          if (Number(row.mails) >= CONFIRM_MAILS_PER_DAY) return 'limited';
          await sql`
            with renewed as (
              update alert_channels
                 set confirm_token_hash = null,
                     confirm_sent_at = now()
               where id = ${channelId}::bigint
                 and account_id = ${accountId}::uuid
              returning id),
            superseded as (${unsentDeliveries({
              streamPrefixes: sql`select 'channel:' || id || '|confirm' from renewed`,
            })}),
            ${confirmationMail('renewed', accountId, row.target, owner)}
            select id from renewed`.execute(trx);
          return 'sent';
        }),
      );
    },

    /**
     * Keeps a test alert's answer, in words (cut to 200 characters), on a
     * channel of the account.
     */
    async recordTest(
      accountId: string,
      channelId: string,
      result: string,
    ): Promise<void> {
      if (!isChannelId(channelId)) return;
      await unlessUnavailable(() =>
        db
          .updateTable('alert_channels')
          .set({ last_test_result: result.slice(0, 200) })
          .where('id', '=', channelId)
          .where('account_id', '=', accountId)
          .execute(),
      );
    },

    /**
     * Stores the tokens of claimed confirmation mails as they are sent,
     * in one statement: each channel's token becomes the one its mail
     * carries (a retry's replaces an attempt's that never arrived), while
     * the address still waits for its confirmation, its link lives, and
     * the mail is the channel's newest (queued at or after its last
     * "Send the link again": an older one, retried, would kill the newer
     * mail's link).
     *
     * @param tokens each claimed mail's delivery id, channel id and new
     *   token's SHA-256
     * @returns the delivery ids whose token is now their channel's; the
     *   others have nothing left to confirm and are not sent
     */
    async mintConfirmations(
      tokens: readonly {
        deliveryId: string;
        channelId: string;
        createdAt: Date;
        tokenHash: Buffer;
      }[],
    ): Promise<Set<string>> {
      if (tokens.length === 0) return new Set();
      const { rows } = await unlessUnavailable(() =>
        sql<{ delivery_id: string | number }>`
          update alert_channels as channel
             set confirm_token_hash = minted.token_hash
            from (values ${sql.join(
              tokens.map(
                (token) =>
                  sql`(${token.deliveryId}::bigint, ${token.channelId}::bigint, ${token.createdAt}::timestamptz, ${token.tokenHash}::bytea)`,
              ),
            )}) as minted (delivery_id, channel_id, created_at, token_hash)
           where channel.id = minted.channel_id
             and channel.kind = 'email'
             and channel.confirmed_at is null
             and channel.disabled_at is null
             -- The delivery's time came through JavaScript: milliseconds.
             and date_trunc('milliseconds', channel.confirm_sent_at)
                 <= minted.created_at
             and not ${linkDead(sql.ref('channel.confirm_sent_at'))}
          returning minted.delivery_id`.execute(db),
      );
      // A bigint: text on a PostgreSQL server, a number from PGlite.
      return new Set(rows.map((row) => String(row.delivery_id)));
    },

    /**
     * The address a confirmation token would confirm, while the token
     * works (unused, within {@link CONFIRM_LINK_HOURS}); changes nothing.
     */
    async confirmable(token: string): Promise<string | undefined> {
      const row = await unlessUnavailable(() =>
        db
          .selectFrom('alert_channels')
          .select('target')
          .where('confirm_token_hash', '=', secretHash(token))
          .where('confirmed_at', 'is', null)
          .where(sql<boolean>`not ${linkDead(sql.ref('confirm_sent_at'))}`)
          .executeTakeFirst(),
      );
      return row?.target;
    },

    /**
     * Confirms the e-mail channel of a working token, once: it is
     * confirmed now and its token's hash is cleared, so the token works
     * no more.
     *
     * @returns the address confirmed, or undefined for a used, unknown or
     *   expired token
     */
    async confirm(token: string): Promise<string | undefined> {
      const row = await unlessUnavailable(() =>
        db
          .updateTable('alert_channels')
          .set({ confirmed_at: sql<Date>`now()`, confirm_token_hash: null })
          .where('confirm_token_hash', '=', secretHash(token))
          .where('confirmed_at', 'is', null)
          .where(sql<boolean>`not ${linkDead(sql.ref('confirm_sent_at'))}`)
          .returning('target')
          .executeTakeFirst(),
      );
      return row?.target;
    },

    /**
     * The e-mail channel a one-click unsubscribe link names (RFC 8058),
     * when its token is the channel's (compared in constant time);
     * changes nothing.
     */
    unsubscribable,

    /**
     * Turns an e-mail channel off by its one-click unsubscribe link
     * (RFC 8058), and drops its deliveries not yet sent, in one
     * statement. Unsubscribing twice is unsubscribing once.
     *
     * @returns the address, or undefined when the link names no channel
     */
    async unsubscribe(
      channelId: string,
      token: string,
    ): Promise<string | undefined> {
      const channel = await unsubscribable(channelId, token);
      if (!channel) return undefined;
      await unlessUnavailable(() =>
        sql`with off as (
              update alert_channels
                 set disabled_at = coalesce(disabled_at, now()),
                     disabled_reason = coalesce(disabled_reason, 'unsubscribed')
               where id = ${channelId}::bigint and kind = 'email'
                 and unsubscribe_token = ${token}
              returning id),
            unsent as (${unsentDeliveries({ channelIds: sql`select id from off` })})
            select id from off`.execute(db),
      );
      return channel.target;
    },
  };
}

/** The account's address once proven, as the accounts write it (ADR-0128). */
function provenAddressOf(accountId: string) {
  return provenAddress(sql`${accountId}::uuid`);
}

export type ChannelsRepository = ReturnType<typeof channelsRepository>;
