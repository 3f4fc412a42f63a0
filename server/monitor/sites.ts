/**
 * An account's sites (issue 59; ADR-0127): every statement that adds, edits,
 * pauses, resumes or removes one, and what `/` and a site's page read of
 * them. A site is a row of `monitors`, the monitor's own table; every
 * statement here names the account as well as the site, so that another
 * account's site is never read or changed: for it, as for no site, the
 * answer is "none".
 *
 * Times come from the monitor's clock (`now`), as in ./repository.ts.
 */
import { sql, type Kysely } from 'kysely';
import type { DownCause, MonitorState } from '../../machines/monitorMachine';
import { unlessUnavailable } from '../db/unavailable';
import { unsentDeliveries, type OutboxTables } from '../outbox/index';
import type { MonitorTables } from './tables';
import type { CheckResult } from './check/siteCheck';

/** The factors of the base interval a site may be checked at (ADR-0127). */
export const INTERVAL_FACTORS = [1, 2, 5, 10, 30, 60] as const;
export type IntervalFactor = (typeof INTERVAL_FACTORS)[number];

/** The longest name a site may have, in characters (code points). */
export const SITE_NAME_MAX = 100;

/** Incidents on one page of a site's history. */
export const INCIDENTS_PER_PAGE = 20;

/** What a site is as its owner sets it. */
export interface SiteSettings {
  /** The URL as the sign-up's rule returns it (with its protocol). */
  siteUrl: string;
  /** Null: the site is called by its host. */
  name: string | null;
  intervalFactor: IntervalFactor;
}

/** One site as `/` lists it. */
export interface SiteSummary {
  id: string;
  siteUrl: string;
  name: string | null;
  intervalFactor: IntervalFactor;
  state: MonitorState;
  pausedAt: Date | null;
  alertsStoppedAt: Date | null;
  lastCheck: CheckResult | null;
  checkedAt: Date | null;
  /** Checks over the last 24 hours, and how many of them were up. */
  day: { checks: number; up: number };
}

/** One day of a site's last 90, as the uptime bars read it. */
export interface SiteDay {
  /** The day's start, UTC. */
  day: Date;
  checks: number;
  up: number;
}

/** One incident of a site's history. */
export interface SiteIncident {
  startedAt: Date;
  /** Null while it goes on. */
  endedAt: Date | null;
  reason: DownCause;
  /** Times it went down in it: more than one while it flapped (ADR-0125). */
  flaps: number;
}

/** Why a site could not be added. */
export type AddRefusal = 'limit';

/** A site id as the URLs carry it: a positive bigint, in digits. */
const SITE_ID = /^[1-9][0-9]{0,18}$/;

/** Whether `id` can name a site at all (anything else names none). */
export function isSiteId(id: string): boolean {
  return SITE_ID.test(id);
}

/** A timestamp parameter. */
const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/**
 * The sites repository over one database.
 *
 * Every function raises DatabaseUnavailableError when the database fails
 * or cannot be reached, and nothing else but what its comment names.
 */
export function sitesRepository(db: Kysely<MonitorTables & OutboxTables>) {
  /**
   * Ends a site's open incident without a mail, fences off a check in
   * flight (its claim no longer holds the row) and starts the site over
   * as `pending`: what a new URL, a pause and a resume share.
   */
  const startedOver = {
    state: 'pending',
    failing_since: null,
    reason: null,
    flapping_since: null,
    lease_until: null,
    claims: sql<number>`monitors.claims + 1`,
  } as const;

  /** Closes the site's open incident, if any (a pause, a new URL): no mail. */
  const closeIncident = (siteId: string, now: Date) =>
    sql`update monitor_incidents set ended_at = ${at(now)}
         where monitor_id = ${siteId}::bigint and ended_at is null`;

  return {
    /**
     * The account's sites, oldest first, with their last 24 hours' checks.
     */
    async list(accountId: string, now: Date): Promise<SiteSummary[]> {
      const since = new Date(now.getTime() - 24 * 60 * 60 * 1000);
      const { rows } = await unlessUnavailable(() =>
        sql<{
          id: string | number;
          site_url: string;
          name: string | null;
          interval_factor: number;
          state: MonitorState;
          paused_at: Date | null;
          alerts_stopped_at: Date | null;
          last_check: CheckResult | null;
          checked_at: Date | null;
          checks: number | string | null;
          up: number | string | null;
        }>`
          with mine as (
            select * from monitors where account_id = ${accountId}),
          raw as (
            select monitor_id, date_trunc('hour', checked_at) as hour,
                   count(*) as checks, count(*) filter (where up) as up
              from monitor_checks
             where monitor_id in (select id from mine)
               and checked_at > ${at(since)}
             group by 1, 2),
          hours as (
            select monitor_id, checks, up from raw
            union all
            select monitor_id, checks, up from monitor_hours
             where monitor_id in (select id from mine)
               and hour > ${at(since)} - interval '1 hour'
               and (monitor_id, hour) not in (select monitor_id, hour from raw)),
          day as (
            select monitor_id, sum(checks) as checks, sum(up) as up
              from hours group by 1)
          select mine.id, mine.site_url, mine.name, mine.interval_factor,
                 mine.state, mine.paused_at, mine.alerts_stopped_at,
                 mine.last_check, mine.checked_at, day.checks, day.up
            from mine left join day on day.monitor_id = mine.id
           order by mine.id`.execute(db),
      );
      return rows.map((row) => ({
        id: String(row.id),
        siteUrl: row.site_url,
        name: row.name,
        intervalFactor: row.interval_factor as IntervalFactor,
        state: row.state,
        pausedAt: row.paused_at,
        alertsStoppedAt: row.alerts_stopped_at,
        lastCheck: row.last_check,
        checkedAt: row.checked_at,
        day: { checks: Number(row.checks ?? 0), up: Number(row.up ?? 0) },
      }));
    },

    /** How many sites the account has. */
    async count(accountId: string): Promise<number> {
      const row = await unlessUnavailable(() =>
        db
          .selectFrom('monitors')
          .select((eb) => eb.fn.countAll<number | string>().as('sites'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow(),
      );
      return Number(row.sites);
    },

    /**
     * Adds a site, due at once, unless the account has `limit` already.
     * The account's row is locked for the count, so that two adds at once
     * cannot pass the limit together.
     *
     * @param confirmed whether the owner's address is confirmed: until it
     *   is, the site waits with no next check (ADR-0120)
     * @returns the new site's id, or `limit`
     */
    async add(
      accountId: string,
      site: SiteSettings,
      limit: number,
      now: Date,
    ): Promise<{ id: string } | AddRefusal> {
      return unlessUnavailable(() =>
        db.transaction().execute(async (trx) => {
          // The count and the insert see one account: a second add waits.
          await sql`select pg_advisory_xact_lock(hashtextextended(${`sites:${accountId}`}, 0))`.execute(
            trx,
          );
          const { rows } = await sql<{ id: string | number }>`
            insert into monitors (account_id, site_url, name, interval_factor,
                                  next_check_at)
            select ${accountId}, ${site.siteUrl}, ${site.name},
                   ${site.intervalFactor}::smallint, ${at(now)}
             where (select count(*) from monitors
                     where account_id = ${accountId}) < ${limit}
            returning id`.execute(trx);
          const added = rows[0];
          return added ? { id: String(added.id) } : 'limit';
        }),
      );
    },

    /**
     * Changes a site's URL, name or interval. A new URL starts it over
     * (pending, checked at once, its open incident ended with no mail;
     * its past checks stay). A new interval applies from the next check,
     * which comes no later than one new interval from now.
     *
     * @returns whether the account has the site
     */
    async edit(
      accountId: string,
      siteId: string,
      site: SiteSettings,
      baseIntervalMs: number,
      now: Date,
    ): Promise<boolean> {
      if (!isSiteId(siteId)) return false;
      return unlessUnavailable(() =>
        db.transaction().execute(async (trx) => {
          const current = await trx
            .selectFrom('monitors')
            .select(['site_url', 'paused_at'])
            .where('id', '=', siteId)
            .where('account_id', '=', accountId)
            .forUpdate()
            .executeTakeFirst();
          if (!current) return false;
          const moved = current.site_url !== site.siteUrl;
          const latest = new Date(
            now.getTime() + baseIntervalMs * site.intervalFactor,
          );
          await trx
            .updateTable('monitors')
            .set({
              site_url: site.siteUrl,
              name: site.name,
              interval_factor: site.intervalFactor,
              ...(moved && {
                ...startedOver,
                last_check: null,
                checked_at: null,
              }),
              ...(current.paused_at === null && {
                next_check_at: moved
                  ? now
                  : sql<Date>`case when next_check_at is null then null
                      else least(next_check_at, ${at(latest)}) end`,
              }),
            })
            .where('id', '=', siteId)
            .execute();
          if (moved) await closeIncident(siteId, now).execute(trx);
          return true;
        }),
      );
    },

    /**
     * Pauses a site: no check, no alert, its open incident ended with no
     * mail. Pausing a paused site changes nothing.
     *
     * @returns whether the account has the site
     */
    async pause(
      accountId: string,
      siteId: string,
      now: Date,
    ): Promise<boolean> {
      if (!isSiteId(siteId)) return false;
      return unlessUnavailable(() =>
        db.transaction().execute(async (trx) => {
          const site = await trx
            .selectFrom('monitors')
            .select('paused_at')
            .where('id', '=', siteId)
            .where('account_id', '=', accountId)
            .forUpdate()
            .executeTakeFirst();
          if (!site) return false;
          if (site.paused_at !== null) return true;
          await trx
            .updateTable('monitors')
            .set({ ...startedOver, paused_at: now, next_check_at: null })
            .where('id', '=', siteId)
            .execute();
          await closeIncident(siteId, now).execute(trx);
          return true;
        }),
      );
    },

    /**
     * Resumes a paused site: pending, checked at once (or, while the
     * owner's address is unconfirmed, waiting for it, ADR-0120).
     *
     * @returns whether the account has the site
     */
    async resume(
      accountId: string,
      siteId: string,
      confirmed: boolean,
      now: Date,
    ): Promise<boolean> {
      if (!isSiteId(siteId)) return false;
      const result = await unlessUnavailable(() =>
        db
          .updateTable('monitors')
          .set({
            ...startedOver,
            paused_at: null,
            next_check_at: confirmed ? now : null,
          })
          .where('id', '=', siteId)
          .where('account_id', '=', accountId)
          .where('paused_at', 'is not', null)
          .executeTakeFirst(),
      );
      if (Number(result.numUpdatedRows) > 0) return true;
      return (await this.exists(accountId, siteId)) !== undefined;
    },

    /**
     * Removes a site with its checks, hours and incidents (their rows
     * cascade) and its alerts not yet sent (the outbox's
     * `unsentDeliveries` of its streams), in one statement.
     *
     * @returns the removed site's URL; undefined when the account has no
     *   such site
     */
    async remove(
      accountId: string,
      siteId: string,
    ): Promise<string | undefined> {
      if (!isSiteId(siteId)) return undefined;
      const { rows } = await unlessUnavailable(() =>
        sql<{ site_url: string }>`
          with gone as (
            delete from monitors
             where id = ${siteId}::bigint and account_id = ${accountId}
            returning id, site_url),
          unsent as (${unsentDeliveries({ streamPrefixes: sql`select 'site:' || id || '|' from gone` })})
          select site_url from gone`.execute(db),
      );
      return rows[0]?.site_url;
    },

    /**
     * @returns the site's settings, when the account has it
     */
    async exists(
      accountId: string,
      siteId: string,
    ): Promise<(SiteSettings & { pausedAt: Date | null }) | undefined> {
      if (!isSiteId(siteId)) return undefined;
      const row = await unlessUnavailable(() =>
        db
          .selectFrom('monitors')
          .select(['site_url', 'name', 'interval_factor', 'paused_at'])
          .where('id', '=', siteId)
          .where('account_id', '=', accountId)
          .executeTakeFirst(),
      );
      return row
        ? {
            siteUrl: row.site_url,
            name: row.name,
            intervalFactor: row.interval_factor as IntervalFactor,
            pausedAt: row.paused_at,
          }
        : undefined;
    },

    /**
     * The site's last 90 days (today's so far included), one row per day
     * with a check, oldest first: from the hourly roll-ups, and the raw
     * checks of hours not rolled up yet.
     */
    async days(siteId: string, now: Date): Promise<SiteDay[]> {
      const since = new Date(
        Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) -
          89 * 86_400_000,
      );
      const { rows } = await unlessUnavailable(() =>
        sql<{ day: Date; checks: number | string; up: number | string }>`
          with raw as (
            select date_trunc('hour', checked_at) as hour, count(*) as checks,
                   count(*) filter (where up) as up
              from monitor_checks
             where monitor_id = ${siteId}::bigint and checked_at >= ${at(since)}
             group by 1),
          hours as (
            select hour, checks, up from raw
            union all
            select hour, checks, up from monitor_hours
             where monitor_id = ${siteId}::bigint and hour >= ${at(since)}
               and hour not in (select hour from raw))
          select date_trunc('day', hour at time zone 'UTC') at time zone 'UTC' as day,
                 sum(checks) as checks, sum(up) as up
            from hours group by 1 order by 1`.execute(db),
      );
      return rows.map((row) => ({
        day: row.day,
        checks: Number(row.checks),
        up: Number(row.up),
      }));
    },

    /**
     * One page of the site's incidents, newest first.
     *
     * @param page 1 for the newest {@link INCIDENTS_PER_PAGE}
     * @returns the page's incidents, and whether an older page exists
     */
    async incidents(
      siteId: string,
      page: number,
    ): Promise<{ incidents: SiteIncident[]; older: boolean }> {
      const rows = await unlessUnavailable(() =>
        db
          .selectFrom('monitor_incidents')
          .select(['started_at', 'ended_at', 'reason', 'flaps'])
          .where('monitor_id', '=', siteId)
          .orderBy('started_at', 'desc')
          .limit(INCIDENTS_PER_PAGE + 1)
          .offset((page - 1) * INCIDENTS_PER_PAGE)
          .execute(),
      );
      return {
        incidents: rows.slice(0, INCIDENTS_PER_PAGE).map((row) => ({
          startedAt: row.started_at,
          endedAt: row.ended_at,
          reason: row.reason,
          flaps: row.flaps,
        })),
        older: rows.length > INCIDENTS_PER_PAGE,
      };
    },
  };
}

export type SitesRepository = ReturnType<typeof sitesRepository>;
