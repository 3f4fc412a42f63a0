/**
 * The monitor's repository: every statement about `monitors`, their checks,
 * hours and incidents, and the alerts they owe, which the mail's outbox
 * queues in the same statement (its `queueAlerts`, ADR-0128; ADR-0103 to
 * ADR-0107). The scheduler (./scheduler.ts) claims and
 * records here; `/` reads a monitor's view here; housekeeping rolls the raw
 * checks up and deletes what is past its retention here.
 *
 * Times come from the monitor's clock (`now`, a parameter of every
 * statement), not the database's, so that a test can hold the clock; the
 * instances on one database read their hosts' clocks, which NTP keeps
 * within far less than a lease (ADR-0104).
 *
 * A result is written only by the claim that still holds its row (the
 * `claims` counter is a fencing token): a check that outlived its lease,
 * whose row another instance has claimed since, writes nothing. Its state
 * change, its raw check, its incident and its alert are one statement, so
 * they commit together or not at all: an incident gives one "down" and one
 * "back up" mail, whatever instance dies when.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type {
  DownCause,
  MonitorAlert,
  MonitorContext,
  MonitorState,
} from '../../machines/monitorMachine';
import { deleteInBatches, type BatchOptions } from '../db/batchedWrites';
import { DatabaseUnavailableError, unlessUnavailable } from '../db/unavailable';
import { claimDue } from '../db/dueClaim';
import { accountConfirmed } from '../accounts/index';
import type { MonitorTables } from './tables';
import type { AlertDetails, AlertKind } from './siteEvents';

/**
 * A write of a site's events, added to the statement that records checks
 * (the alerts' fan-out to the site's channels, ADR-0129): the body of a
 * data-modifying CTE that reads the CTE `owed`, one row per event with
 * the columns `kind` (the delivery's kind, `site.down`, …), `account_id`,
 * `monitor_id` (bigint), `details` (jsonb: alertNotices.ts's AlertDetails)
 * and `owner_mail` (whether the account's own address gets it: its owner
 * has not stopped the site's alert mail, ADR-0124); it returns `account_id`
 * for each delivery queued.
 */
export type SiteEventsWrite = (
  owed: RawBuilder<unknown>,
) => RawBuilder<unknown>;

/** The monitor's tables (ADR-0128: it names no other feature's). */
type MonitorDatabase = MonitorTables;
import type { CheckResult } from './check/siteCheck';
import { isSiteId } from './sites';

/** A monitor a claim took: what its check and its transition need. */
export interface ClaimedMonitor {
  /** The row's id (a bigint, as text). */
  id: string;
  accountId: string;
  siteUrl: string;
  state: MonitorState;
  context: MonitorContext;
  /** When the check was due: its lag is measured from here. */
  dueAt: Date;
  /** The claim's number: the result is written only while it is the row's. */
  claim: number;
  /** Since when the site is flapping (ADR-0125), ms; null: it is not. */
  flappingSince: number | null;
  /** Checked every `intervalFactor` × the base interval (ADR-0127). */
  intervalFactor: number;
  /** What its owner calls it; null: its host (ADR-0127). */
  name: string | null;
}

/** A finished check, with the transition it made (./scheduler.ts). */
export interface RecordedCheck {
  monitor: ClaimedMonitor;
  result: CheckResult;
  /** When the check started (the monitor's clock). */
  checkedAt: Date;
  /** The machine's next state and context. */
  state: MonitorState;
  context: MonitorContext;
  /** The alerts the transition queued, in order. */
  alerts: readonly MonitorAlert[];
  /** When the next check is due. */
  nextCheckAt: Date;
  /**
   * A failed check while most canaries failed too (ADR-0122): only its
   * next check is written (and its claim given back), not the check.
   */
  inconclusive?: boolean;
}

/** One hour of a monitor's checks, as the chart reads it. */
export interface MonitorHour {
  /** The hour's start. */
  hour: Date;
  checks: number;
  up: number;
  /** Of the checks that were up, in ms; null when none was. */
  medianMs: number | null;
  slowestMs: number | null;
}

/** What a site's page shows of its monitor. */
export interface MonitorView {
  /** The site's id (a bigint, as text). */
  id: string;
  siteUrl: string;
  /** What its owner calls it; null: its host (ADR-0127). */
  name: string | null;
  /** Checked every `intervalFactor` × `MONITOR_INTERVAL_SECONDS`. */
  intervalFactor: number;
  /** Since when it is paused; null: it is checked. */
  pausedAt: Date | null;
  state: MonitorState;
  context: MonitorContext;
  /** The latest check, when one has run. */
  lastCheck: CheckResult | null;
  checkedAt: Date | null;
  /**
   * When the next check is due; null while the site waits for its owner's
   * address to be confirmed (ADR-0120).
   */
  nextCheckAt: Date | null;
  /**
   * Whether the owner's address is confirmed: until it is, the site is
   * checked once, at sign-up (ADR-0120).
   */
  confirmed: boolean;
  /** Since when its alert mail is stopped (ADR-0124); null: it is sent. */
  alertsStoppedAt: Date | null;
  /** The last 24 hours, oldest first; hours without a check are absent. */
  hours: MonitorHour[];
  /** How long the site was down in the last 24 hours, in ms (incidents). */
  downMs: number;
}

/** Where a "check now" stands (ADR-0106). */
export type CheckNowClaim =
  | { kind: 'claimed'; monitor: ClaimedMonitor }
  /** One ran less than a minute ago. */
  | { kind: 'limited' }
  /** A check of the site is running already. */
  | { kind: 'running' }
  /** The account watches no site. */
  | { kind: 'none' }
  /** The owner's address is not confirmed yet (ADR-0120). */
  | { kind: 'unconfirmed' }
  /** The site is paused (ADR-0127). */
  | { kind: 'paused' };

/** The raw checks of an hour are rolled up once the hour ended this long ago. */
export const RAW_CHECKS_KEPT_MS = 60 * 60 * 1000;
/** Hourly aggregates are kept this long (ADR-0107). */
export const HOURS_KEPT_DAYS = 90;
/** Incidents are kept this long after they ended (ADR-0107). */
export const INCIDENTS_KEPT_DAYS = 365;
/**
 * The ceiling on alert mail (ADR-0125): a site that opens its next incident
 * after this many within an hour is flapping.
 */
export const FLAP_INCIDENTS_PER_HOUR = 3;
/** A flapping site is steady again once its last incident ended this long ago. */
export const STEADY_AFTER_MS = 30 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/** Monitors whose hour is rolled up per statement. */
const ROLL_UP_BATCH = 500;

/** A row of `monitors` as a claim answers it. */
interface MonitorRow {
  id: string | number;
  account_id: string;
  site_url: string;
  state: MonitorState;
  failing_since: Date | null;
  reason: DownCause | null;
  /** Never null in a claimed row: a claim takes due rows only. */
  next_check_at: Date;
  claims: number;
  flapping_since: Date | null;
  interval_factor: number;
  name: string | null;
}

const MONITOR_COLUMNS = sql`monitors.id, monitors.account_id,
  monitors.site_url, monitors.state, monitors.failing_since, monitors.reason,
  monitors.next_check_at, monitors.claims, monitors.flapping_since,
  monitors.interval_factor, monitors.name`;

function claimed(row: MonitorRow): ClaimedMonitor {
  return {
    id: String(row.id),
    accountId: row.account_id,
    siteUrl: row.site_url,
    state: row.state,
    context: {
      failingSince: row.failing_since?.getTime() ?? null,
      reason: row.reason,
    },
    dueAt: row.next_check_at,
    claim: Number(row.claims),
    flappingSince: row.flapping_since?.getTime() ?? null,
    intervalFactor: Number(row.interval_factor),
    name: row.name,
  };
}

/** A timestamp parameter. */
const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;
/** Whether a monitor's owner has confirmed the address (accounts' rule, ADR-0120). */
const ownerConfirmed = accountConfirmed(sql.ref('monitors.account_id'));
/** An interval parameter, from milliseconds. */
const ms = (value: number) => sql`make_interval(secs => ${value / 1000})`;

/** What an alert will say (./alertNotices.ts's AlertDetails). */
function alertDetails(
  monitor: ClaimedMonitor,
  alert: MonitorAlert,
  occurredAt: Date,
): AlertDetails {
  const siteUrl = monitor.siteUrl;
  const named = monitor.name === null ? {} : { siteName: monitor.name };
  const occurred = { occurredAt: occurredAt.toISOString() };
  return alert.kind === 'down'
    ? {
        ...named,
        siteUrl,
        startedAt: new Date(alert.startedAt).toISOString(),
        reason: alert.reason,
        ...occurred,
      }
    : {
        ...named,
        siteUrl,
        startedAt: new Date(alert.startedAt).toISOString(),
        endedAt: new Date(alert.endedAt).toISOString(),
        ...occurred,
      };
}

/**
 * What a transition's alert writes (ADR-0125): the incident it opens,
 * merges into the flapping one, or closes (none for "steady"), and the
 * mail it queues, if any.
 */
interface PlannedAlert {
  monitor: ClaimedMonitor;
  action: 'open' | 'merge' | 'close' | 'none';
  mail: AlertKind | null;
  details: AlertDetails;
  /** A "down"'s reason, kept with the incident. */
  reason: DownCause | null;
}

/** What the ceiling needs to know of a site's incidents, read before its write. */
interface FlapFacts {
  /** Incidents started within the hour before the check. */
  recent: number;
  /** The latest incident: when it ended (null while open), its flaps. */
  latestEndedAt: Date | null;
  latestFlaps: number;
}

/**
 * The token of a site's stop link (ADR-0124): HMAC-SHA256 of the monitor's
 * id under the `alerts-off` key, base64url (43 characters). One per site,
 * so every alert mail of a site carries the same link, and no link can be
 * made without the key.
 */
function stopTokenOf(key: Buffer, monitorId: string): string {
  return createHmac('sha256', key)
    .update(`alerts-off:${monitorId}`)
    .digest('base64url');
}

/** A reason as a jsonb parameter. */
const reasonJson = (reason: DownCause | null) =>
  reason === null ? null : JSON.stringify(reason);

/** What {@link MonitorRepository.record} did with a batch of checks. */
export interface RecordOutcome {
  /** The monitors whose result was written (their claim still held). */
  written: Set<string>;
  /** Whether an alert was queued: the mail sender should look. */
  alertsQueued: boolean;
  /** The monitors whose result the database refused, alone. */
  parked: string[];
}

/**
 * Whether the database refused a value of the statement: SQLSTATE class
 * 22, "data exception" (PostgreSQL, Appendix A), which PGlite gives too.
 */
function refusedValue(error: unknown): boolean {
  const cause = error instanceof DatabaseUnavailableError ? error.cause : error;
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('22');
}

/**
 * The repository over one database. Every function raises
 * DatabaseUnavailableError (server/db/unavailable.ts) when the database fails.
 */
export function monitorRepository(db: Kysely<MonitorDatabase>) {
  /** The fan-out of a site's events ({@link SiteEventsWrite}); none: nothing is queued. */
  let eventsWrite: SiteEventsWrite | undefined;
  const siteEvents = (owed: RawBuilder<unknown>) =>
    eventsWrite?.(owed) ?? sql`select null::uuid as account_id where false`;
  /** The `alerts-off` key (migration 0014), read once. */
  let keyRead: Promise<Buffer> | undefined;
  const alertsKey = (): Promise<Buffer> => {
    keyRead ??= unlessUnavailable(() =>
      db
        .selectFrom('monitor_secrets')
        .select('value')
        .where('name', '=', 'alerts-off')
        .executeTakeFirstOrThrow(),
    ).then(
      (row) => Buffer.from(row.value),
      (error: unknown) => {
        keyRead = undefined;
        throw error;
      },
    );
    return keyRead;
  };
  /**
   * The ceiling on alert mail (ADR-0125): turns each transition's alerts
   * into what they write, after reading the incidents of the sites that
   * need it. The read is outside the write's statement, but only the
   * claim that holds a site writes its incidents, so what it read stands.
   *
   * @returns the planned rows, and each check's `flapping_since` to write
   */
  async function planAlerts(checks: readonly RecordedCheck[]): Promise<{
    rows: PlannedAlert[];
    flappingSince: (check: RecordedCheck) => string | null;
  }> {
    const asked = checks.filter(
      (check) =>
        check.alerts.length > 0 ||
        (check.monitor.flappingSince !== null && check.state === 'up'),
    );
    const facts = new Map<string, FlapFacts>();
    if (asked.length > 0) {
      const { rows } = await unlessUnavailable(() =>
        sql<{
          id: string | number;
          recent: string | number;
          latest_ended_at: Date | null;
          latest_flaps: number | null;
        }>`
          with asked (id, since) as (values ${sql.join(
            asked.map(
              (check) => sql`(${check.monitor.id}::bigint,
                ${new Date(check.checkedAt.getTime() - HOUR_MS).toISOString()}::timestamptz)`,
            ),
          )})
          select asked.id,
                 (select count(*) from monitor_incidents as recent
                   where recent.monitor_id = asked.id
                     and recent.started_at > asked.since) as recent,
                 latest.ended_at as latest_ended_at,
                 latest.flaps as latest_flaps
            from asked
            left join lateral (
              select ended_at, flaps from monitor_incidents
               where monitor_id = asked.id
               order by started_at desc limit 1) as latest on true`.execute(db),
      );
      for (const row of rows) {
        facts.set(String(row.id), {
          recent: Number(row.recent),
          latestEndedAt: row.latest_ended_at,
          latestFlaps: Number(row.latest_flaps ?? 0),
        });
      }
    }
    const planned: PlannedAlert[] = [];
    const flapping = new Map<RecordedCheck, number | null>();
    for (const check of checks) {
      const { monitor } = check;
      let since = monitor.flappingSince;
      const known = facts.get(monitor.id);
      for (const alert of check.alerts) {
        const details = alertDetails(monitor, alert, check.checkedAt);
        if (alert.kind === 'up') {
          planned.push({
            monitor,
            action: 'close',
            mail: since === null ? 'up' : null,
            details,
            reason: null,
          });
        } else if (since !== null) {
          planned.push({
            monitor,
            action: 'merge',
            mail: null,
            details,
            reason: alert.reason,
          });
        } else if ((known?.recent ?? 0) >= FLAP_INCIDENTS_PER_HOUR) {
          since = alert.startedAt;
          planned.push({
            monitor,
            action: 'open',
            mail: 'flapping',
            details: { ...details, incidents: (known?.recent ?? 0) + 1 },
            reason: alert.reason,
          });
        } else {
          planned.push({
            monitor,
            action: 'open',
            mail: 'down',
            details,
            reason: alert.reason,
          });
        }
      }
      const lastEnded = known?.latestEndedAt;
      if (
        since !== null &&
        check.alerts.length === 0 &&
        check.state === 'up' &&
        lastEnded &&
        lastEnded.getTime() <= check.checkedAt.getTime() - STEADY_AFTER_MS
      ) {
        planned.push({
          monitor,
          action: 'none',
          mail: 'steady',
          details: {
            ...(monitor.name === null ? {} : { siteName: monitor.name }),
            siteUrl: monitor.siteUrl,
            startedAt: new Date(since).toISOString(),
            endedAt: lastEnded.toISOString(),
            incidents: known.latestFlaps,
            occurredAt: check.checkedAt.toISOString(),
          },
          reason: null,
        });
        since = null;
      }
      flapping.set(check, since);
    }
    return {
      rows: planned,
      flappingSince: (check) => {
        const since = flapping.get(check) ?? null;
        return since === null ? null : new Date(since).toISOString();
      },
    };
  }

  /** Whether `token` is the stop link's token of `monitorId`, in constant time. */
  async function isStopToken(
    monitorId: string,
    token: string,
  ): Promise<boolean> {
    if (!isSiteId(monitorId)) return false;
    const expected = Buffer.from(stopTokenOf(await alertsKey(), monitorId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  const due = (now: Date) => sql`(monitors.next_check_at <= ${at(now)}
    and (monitors.lease_until is null or monitors.lease_until < ${at(now)}))`;

  /**
   * {@link MonitorRepository.record}'s one statement for `checks`.
   *
   * @throws DatabaseUnavailableError, the driver's error as its cause
   */
  async function recordTogether(
    checks: readonly RecordedCheck[],
  ): Promise<{ written: Set<string>; alertsQueued: boolean }> {
    if (checks.length === 0) return { written: new Set(), alertsQueued: false };
    const plans = await planAlerts(checks);
    const results = sql.join(
      checks.map(
        (check) => sql`(${check.monitor.id}::bigint,
          ${check.monitor.claim}::integer, ${check.state}::text,
          ${check.context.failingSince === null ? null : new Date(check.context.failingSince).toISOString()}::timestamptz,
          ${reasonJson(check.context.reason)}::jsonb,
          ${check.nextCheckAt.toISOString()}::timestamptz,
          ${JSON.stringify(check.result)}::jsonb,
          ${check.checkedAt.toISOString()}::timestamptz,
          ${check.result.outcome === 'up'}::boolean,
          ${check.result.status ?? null}::smallint,
          ${Math.round(check.result.timings.totalMs)}::integer,
          ${check.inconclusive !== true}::boolean,
          ${plans.flappingSince(check)}::timestamptz)`,
      ),
    );
    const stopKey = plans.rows.some((row) => row.mail !== null)
      ? await alertsKey()
      : undefined;
    const alerts = plans.rows.map(
      (row) => sql`(${row.monitor.id}::bigint,
          ${row.monitor.claim}::integer, ${row.action}::text,
          ${row.mail}::text,
          ${JSON.stringify({
            ...row.details,
            monitorId: row.monitor.id,
            stopToken: stopKey ? stopTokenOf(stopKey, row.monitor.id) : '',
          })}::jsonb,
          ${row.details.startedAt}::timestamptz,
          ${row.details.endedAt ?? null}::timestamptz,
          ${reasonJson(row.reason)}::jsonb)`,
    );
    // A values list cannot be empty: with no alert, one that matches
    // no monitor.
    const alertRows =
      alerts.length > 0
        ? sql.join(alerts)
        : sql`(null::bigint, null::integer, null::text, null::text,
            null::jsonb, null::timestamptz, null::timestamptz, null::jsonb)`;
    const { rows } = await unlessUnavailable(() =>
      sql<{ id: string | number; queued: boolean }>`
        with results (id, claim, state, failing_since, reason, next_check_at,
                      last_check, checked_at, up, status, total_ms, counted,
                      flapping_since)
          as (values ${results}),
        alerts (id, claim, action, mail, details, started_at, ended_at, reason)
          as (values ${alertRows}),
        -- A site whose owner has not confirmed the address waits, with no
        -- next check, once its first check is written (ADR-0120).
        moved as (
          update monitors set state = results.state,
                 failing_since = results.failing_since,
                 reason = results.reason,
                 next_check_at = case when ${ownerConfirmed}
                   then results.next_check_at else null end,
                 lease_until = null,
                 -- An inconclusive check (ADR-0122) leaves no trace of itself.
                 last_check = case when results.counted
                   then results.last_check else monitors.last_check end,
                 checked_at = case when results.counted
                   then results.checked_at else monitors.checked_at end,
                 flapping_since = results.flapping_since
            from results
           where monitors.id = results.id and monitors.claims = results.claim
          returning monitors.id, monitors.claims as claim,
                    monitors.account_id, monitors.alerts_stopped_at),
        -- What else a result writes joins the claim that wrote it, not the
        -- monitor alone: of two results of one site in a batch, the one
        -- whose claim no longer holds the row writes nothing (ADR-0120).
        checks as (
          insert into monitor_checks (monitor_id, checked_at, up, status,
                                      total_ms)
          select results.id, results.checked_at, results.up, results.status,
                 results.total_ms
            from results join moved
              on moved.id = results.id and moved.claim = results.claim
           where results.counted),
        opened as (
          insert into monitor_incidents (monitor_id, started_at, reason)
          select alerts.id, alerts.started_at, alerts.reason
            from alerts join moved
              on moved.id = alerts.id and moved.claim = alerts.claim
           where alerts.action = 'open'
          on conflict (monitor_id) where ended_at is null do nothing
          returning monitor_id, id),
        -- A flapping site's next incident is its flapping one again (ADR-0125).
        merged as (
          update monitor_incidents set ended_at = null,
                 flaps = monitor_incidents.flaps + 1
            from alerts join moved
              on moved.id = alerts.id and moved.claim = alerts.claim
           where alerts.action = 'merge'
             and monitor_incidents.id = (
                   select latest.id from monitor_incidents as latest
                    where latest.monitor_id = alerts.id
                    order by latest.started_at desc limit 1)),
        closed as (
          update monitor_incidents set ended_at = alerts.ended_at
            from alerts join moved
              on moved.id = alerts.id and moved.claim = alerts.claim
           where alerts.action = 'close'
             and monitor_incidents.monitor_id = alerts.id
             and monitor_incidents.ended_at is null),
        -- The site's events, each with its incident: the one this
        -- statement opened, or the site's latest (which it merges into or
        -- closes; snapshot of before the statement).
        owed (kind, account_id, monitor_id, details, owner_mail) as (
          select 'site.' || alerts.mail, moved.account_id, alerts.id,
                 alerts.details || jsonb_build_object('incidentId',
                   coalesce(opened.id, latest.id)::text),
                 -- Its owner stopped the site's alert mail (ADR-0124).
                 moved.alerts_stopped_at is null
            from alerts
            join moved on moved.id = alerts.id and moved.claim = alerts.claim
            left join opened on opened.monitor_id = alerts.id
            left join lateral (
              select id from monitor_incidents
               where monitor_incidents.monitor_id = alerts.id
               order by started_at desc limit 1) as latest on true
           where alerts.mail is not null),
        -- Fanned out to the site's channels (the alerts' write, ADR-0129).
        queued as (${siteEvents(sql`owed`)})
        select moved.id, exists (select 1 from queued) as queued
          from moved`.execute(db),
    );
    return {
      written: new Set(rows.map((row) => String(row.id))),
      alertsQueued: rows.some((row) => row.queued),
    };
  }

  return {
    /**
     * Sets the write that fans a site's events out to its channels, in
     * the statement that records the checks (one: the alerts').
     */
    onSiteEvents(write: SiteEventsWrite): void {
      eventsWrite = write;
    },

    /**
     * Claims up to `limit` due monitors, soonest due first, with a lease
     * of `leaseMs` (the due-row claim of server/db/dueClaim.ts, shared with
     * the mail outbox).
     */
    async claim(
      limit: number,
      leaseMs: number,
      now: Date,
    ): Promise<ClaimedMonitor[]> {
      const rows = await claimDue<MonitorRow>(db, {
        table: 'monitors',
        due: due(now),
        order: sql`monitors.next_check_at`,
        set: sql`lease_until = ${at(now)} + ${ms(leaseMs)},
          claims = monitors.claims + 1`,
        returning: MONITOR_COLUMNS,
        limit,
      });
      return rows.map(claimed);
    },

    /**
     * Claims an account's monitor for a "check now" (ADR-0106): at most one a
     * minute (`limitMs`), never while a check of it runs, and never while
     * the site waits for its owner's address to be confirmed (ADR-0120).
     */
    async claimNow(
      accountId: string,
      siteId: string,
      leaseMs: number,
      limitMs: number,
      now: Date,
    ): Promise<CheckNowClaim> {
      const row = await unlessUnavailable(() =>
        sql<
          MonitorRow & {
            unconfirmed: boolean;
            limited: boolean;
            running: boolean;
            paused: boolean;
          }
        >`
          with current as (
            select monitors.id,
                   monitors.paused_at is not null as paused,
                   (not ${ownerConfirmed}
                    or monitors.next_check_at is null) as unconfirmed,
                   (check_now_at is not null
                    and check_now_at > ${at(now)} - ${ms(limitMs)}) as limited,
                   (lease_until is not null and lease_until >= ${at(now)}) as running
              from monitors
             where monitors.account_id = ${accountId}
               and monitors.id = ${siteId}::bigint
               for update of monitors),
          taken as (
            update monitors set lease_until = ${at(now)} + ${ms(leaseMs)},
                   claims = monitors.claims + 1, check_now_at = ${at(now)}
              from current
             where monitors.id = current.id and not current.unconfirmed
               and not current.limited and not current.running
            returning ${MONITOR_COLUMNS})
          select taken.*, current.unconfirmed, current.limited, current.running,
                 current.paused
            from current left join taken on taken.id = current.id`.execute(db),
      );
      const found = row.rows[0];
      if (!found) return { kind: 'none' };
      if (found.paused) return { kind: 'paused' };
      if (found.unconfirmed) return { kind: 'unconfirmed' };
      if (found.limited) return { kind: 'limited' };
      if (found.running || found.id === null) return { kind: 'running' };
      return { kind: 'claimed', monitor: claimed(found) };
    },

    /**
     * Makes an account's monitor due now, for an instance that checks
     * nothing itself (`MONITOR=off`): another instance runs it within
     * seconds. Limited like {@link claimNow}; a site that waits for its
     * owner's address to be confirmed stays waiting (ADR-0120).
     *
     * @returns whether it was made due (false: limited, waiting, or no
     *   site)
     */
    async dueNow(
      accountId: string,
      siteId: string,
      limitMs: number,
      now: Date,
    ): Promise<boolean> {
      const result = await unlessUnavailable(() =>
        db
          .updateTable('monitors')
          .set({ next_check_at: now, check_now_at: now })
          .where('account_id', '=', accountId)
          .where('id', '=', siteId)
          .where('next_check_at', 'is not', null)
          .where((eb) =>
            eb.or([
              eb('check_now_at', 'is', null),
              eb('check_now_at', '<=', new Date(now.getTime() - limitMs)),
            ]),
          )
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * Writes finished checks, in one statement: each monitor's new state
     * and next check, its raw check, the incident it opens or closes and
     * the alerts it queues (to confirmed addresses only, ADR-0105), for every
     * check whose claim still holds its row.
     *
     * A value the database refuses (SQLSTATE class 22, "data exception":
     * a NUL in `jsonb` is 22P05) must not cost the other sites their
     * results (issue 58): the batch is then written check by check, and a
     * check refused alone is parked, its claim held until its lease ends,
     * when its site is checked again.
     *
     * @returns the ids of the monitors written, whether an alert was
     *   queued (the mail sender should look), and the ids of the monitors
     *   parked
     * @throws DatabaseUnavailableError when the database fails otherwise
     */
    async record(checks: readonly RecordedCheck[]): Promise<RecordOutcome> {
      try {
        return { ...(await recordTogether(checks)), parked: [] };
      } catch (error) {
        if (!refusedValue(error)) throw error;
      }
      const outcome: RecordOutcome = {
        written: new Set(),
        alertsQueued: false,
        parked: [],
      };
      for (const check of checks) {
        try {
          const alone = await recordTogether([check]);
          for (const id of alone.written) outcome.written.add(id);
          outcome.alertsQueued ||= alone.alertsQueued;
        } catch (error) {
          if (!refusedValue(error)) throw error;
          outcome.parked.push(check.monitor.id);
        }
      }
      return outcome;
    },

    /**
     * Gives claims back without a result (a graceful stop): their monitors
     * are due again at once, for any instance.
     */
    async release(monitors: readonly ClaimedMonitor[]): Promise<void> {
      if (monitors.length === 0) return;
      const held = sql.join(
        monitors.map(
          (monitor) => sql`(${monitor.id}::bigint, ${monitor.claim}::integer)`,
        ),
      );
      await unlessUnavailable(() =>
        sql`update monitors set lease_until = null
              from (values ${held}) as held (id, claim)
             where monitors.id = held.id and monitors.claims = held.claim`.execute(
          db,
        ),
      );
    },

    /**
     * At the start of the embedded engine's one instance (ADR-0048): claims
     * left by a process that died are released at once rather than after their
     * lease.
     */
    async releaseOrphans(): Promise<void> {
      await unlessUnavailable(() =>
        db
          .updateTable('monitors')
          .set({ lease_until: null })
          .where('lease_until', 'is not', null)
          .execute(),
      );
    },

    /**
     * The site a stop link names, when its token is the site's
     * (ADR-0124); reads only.
     *
     * @param monitorId the link's `m` (digits)
     * @param token the link's `t`
     * @returns the site's URL and whether its alert mail is stopped;
     *   undefined for a token that is not the site's, or no such site
     */
    async stopLinkSite(
      monitorId: string,
      token: string,
    ): Promise<{ siteUrl: string; stopped: boolean } | undefined> {
      if (!(await isStopToken(monitorId, token))) return undefined;
      const row = await unlessUnavailable(() =>
        db
          .selectFrom('monitors')
          .select(['site_url', 'alerts_stopped_at'])
          .where('id', '=', monitorId)
          .executeTakeFirst(),
      );
      return row
        ? { siteUrl: row.site_url, stopped: row.alerts_stopped_at !== null }
        : undefined;
    },

    /**
     * Stops a site's alert mail, by its stop link (ADR-0124, RFC 8058): no
     * session needed, the token is the proof. Stopping twice is stopping
     * once.
     *
     * @returns the site's URL; undefined for a token that is not the
     *   site's, or no such site
     */
    async stopAlerts(
      monitorId: string,
      token: string,
    ): Promise<string | undefined> {
      if (!(await isStopToken(monitorId, token))) return undefined;
      const row = await unlessUnavailable(() =>
        db
          .updateTable('monitors')
          .set({
            alerts_stopped_at: sql<Date>`coalesce(alerts_stopped_at, now())`,
          })
          .where('id', '=', monitorId)
          .returning('site_url')
          .executeTakeFirst(),
      );
      return row?.site_url;
    },

    /** Sends a site's alert mail again (ADR-0124), from its page. */
    async resumeAlerts(accountId: string, siteId: string): Promise<void> {
      await unlessUnavailable(() =>
        db
          .updateTable('monitors')
          .set({ alerts_stopped_at: null })
          .where('account_id', '=', accountId)
          .where('id', '=', siteId)
          .execute(),
      );
    },

    /**
     * @param siteId the site's id; undefined: the account's first site
     *   (the sign-up's, for its first sign-in)
     * @returns what a site's page shows of it: its state, latest check,
     *   last 24 hours and time down; null when the account has no such
     *   site
     */
    async view(
      accountId: string,
      siteId: string | undefined,
      now: Date,
    ): Promise<MonitorView | null> {
      if (siteId !== undefined && !isSiteId(siteId)) {
        return null;
      }
      const monitor = await unlessUnavailable(() =>
        db
          .selectFrom('monitors')
          .select([
            'monitors.id',
            'monitors.site_url',
            'monitors.name',
            'monitors.interval_factor',
            'monitors.paused_at',
            'monitors.state',
            'monitors.failing_since',
            'monitors.reason',
            'monitors.last_check',
            'monitors.checked_at',
            'monitors.next_check_at',
            'monitors.alerts_stopped_at',
            ownerConfirmed.as('confirmed'),
          ])
          .where('monitors.account_id', '=', accountId)
          .$if(siteId !== undefined, (query) =>
            query.where('monitors.id', '=', siteId ?? ''),
          )
          .orderBy('monitors.id')
          .limit(1)
          .executeTakeFirst(),
      );
      if (!monitor) return null;
      const since = new Date(now.getTime() - 24 * 60 * 60 * 1000);
      const [hours, down] = await unlessUnavailable(() =>
        Promise.all([
          sql<{
            hour: Date;
            checks: number | string;
            up: number | string;
            median_ms: number | null;
            slowest_ms: number | null;
          }>`
            with raw as (
              select date_trunc('hour', checked_at) as hour,
                     count(*) as checks, count(*) filter (where up) as up,
                     percentile_disc(0.5) within group (order by total_ms)
                       filter (where up) as median_ms,
                     max(total_ms) filter (where up) as slowest_ms
                from monitor_checks
               where monitor_id = ${monitor.id} and checked_at > ${at(since)}
               group by 1)
            select hour, checks, up, median_ms, slowest_ms from raw
            union all
            select hour, checks, up, median_ms, slowest_ms from monitor_hours
             where monitor_id = ${monitor.id}
               and hour > ${at(since)} - interval '1 hour'
               and hour not in (select hour from raw)
             order by hour`.execute(db),
          sql<{ down_ms: number | string | null }>`
            select sum(extract(epoch from
                     least(coalesce(ended_at, ${at(now)}), ${at(now)})
                     - greatest(started_at, ${at(since)})) * 1000) as down_ms
              from monitor_incidents
             where monitor_id = ${monitor.id}
               and coalesce(ended_at, ${at(now)}) > ${at(since)}`.execute(db),
        ]),
      );
      return {
        id: String(monitor.id),
        siteUrl: monitor.site_url,
        name: monitor.name,
        intervalFactor: monitor.interval_factor,
        pausedAt: monitor.paused_at,
        state: monitor.state,
        context: {
          failingSince: monitor.failing_since?.getTime() ?? null,
          reason: monitor.reason,
        },
        lastCheck: (monitor.last_check as CheckResult | null) ?? null,
        checkedAt: monitor.checked_at,
        nextCheckAt: monitor.next_check_at,
        confirmed: monitor.confirmed,
        alertsStoppedAt: monitor.alerts_stopped_at,
        hours: hours.rows.map((row) => ({
          hour: row.hour,
          checks: Number(row.checks),
          up: Number(row.up),
          medianMs: row.median_ms === null ? null : Number(row.median_ms),
          slowestMs: row.slowest_ms === null ? null : Number(row.slowest_ms),
        })),
        downMs: Math.max(0, Math.round(Number(down.rows[0]?.down_ms ?? 0))),
      };
    },

    /**
     * Rolls the raw checks of every hour that ended more than
     * {@link RAW_CHECKS_KEPT_MS} ago into one row per monitor and hour
     * (count, count up, median and slowest time of the checks that were
     * up), deleting them in the same statement, a batch of monitors at a
     * time (ADR-0107). An hour is rolled up whole: no check arrives for it
     * later.
     *
     * @returns how many raw checks it rolled up
     */
    async rollUp(now: Date): Promise<number> {
      const before = new Date(now.getTime() - RAW_CHECKS_KEPT_MS);
      let rolled = 0;
      for (;;) {
        const { rows } = await unlessUnavailable(() =>
          sql<{ rolled: number | string }>`
            with batch as (
              select distinct monitor_id from monitor_checks
               where checked_at < date_trunc('hour', ${at(before)})
               order by monitor_id limit ${ROLL_UP_BATCH}),
            gone as (
              delete from monitor_checks
               where monitor_id in (select monitor_id from batch)
                 and checked_at < date_trunc('hour', ${at(before)})
              returning monitor_id, checked_at, up, total_ms),
            hours as (
              insert into monitor_hours (monitor_id, hour, checks, up,
                                         median_ms, slowest_ms)
              select monitor_id, date_trunc('hour', checked_at), count(*),
                     count(*) filter (where up),
                     percentile_disc(0.5) within group (order by total_ms)
                       filter (where up),
                     max(total_ms) filter (where up)
                from gone group by 1, 2
              on conflict (monitor_id, hour) do update
                 set checks = monitor_hours.checks + excluded.checks,
                     up = monitor_hours.up + excluded.up,
                     median_ms = coalesce(monitor_hours.median_ms, excluded.median_ms),
                     slowest_ms = greatest(monitor_hours.slowest_ms, excluded.slowest_ms))
            select count(*) as rolled from gone`.execute(db),
        );
        const count = Number(rows[0]?.rolled ?? 0);
        rolled += count;
        if (count === 0) return rolled;
      }
    },

    /**
     * Deletes hourly rows older than {@link HOURS_KEPT_DAYS} and incidents
     * that ended more than {@link INCIDENTS_KEPT_DAYS} ago, in batches
     * (server/db/batchedWrites.ts).
     *
     * @param options.batchRows rows per statement (default 10,000)
     * @returns how many rows it deleted
     * @throws DatabaseUnavailableError when the database fails
     */
    async deleteOld(
      now: Date,
      options: BatchOptions = {},
    ): Promise<{ hours: number; incidents: number }> {
      return {
        hours: await deleteInBatches(
          db,
          'monitor_hours',
          sql`hour < ${at(now)} - make_interval(days => ${HOURS_KEPT_DAYS})`,
          options,
        ),
        incidents: await deleteInBatches(
          db,
          'monitor_incidents',
          sql`ended_at < ${at(now)} - make_interval(days => ${INCIDENTS_KEPT_DAYS})`,
          options,
        ),
      };
    },
  };
}

export type MonitorRepository = ReturnType<typeof monitorRepository>;
