/**
 * The monitor's scheduler (ADR-0104): one per instance
 * that checks (`MONITOR` is not `off`). It claims due monitors with a lease
 * (./repository.ts, the due-row claim the mail outbox shares) in the loop
 * of server/db/leasedWorker.ts, runs up to `concurrency` checks at once,
 * each on its own, moves each site's machine
 * with the check's result (machines/monitorMachine.ts's pure
 * `stepMonitor`), and writes the results in batches.
 *
 * - No actor lives in memory: a site's state is its row, read by the claim
 *   and written back with the result, fenced by the claim's number.
 * - A slot is for a check's work, not its wait: a check still waiting
 *   for its site after `slotHoldMs` (1 s) gives its slot back and waits
 *   outside the slots until its own time box (15 s) ends, up to
 *   `MAX_WAITING_PER_SLOT` × `concurrency` checks in all. Sites that accept
 *   a connection and never answer (a tarpit) cannot fill the slots, so
 *   no site delays another by more than `slotHoldMs`.
 * - "Check now" takes a free slot like a claim, or makes the site due at
 *   once when none is free.
 * - A failed check counts only while the canaries answer (ADR-0122): when
 *   most of `canaryUrls` fail too, this instance is the one cut off, and
 *   the check is inconclusive: the site keeps its state, queues no alert,
 *   and is checked again a third of the interval later.
 * - A graceful stop aborts the checks in flight and gives their claims
 *   back; a killed instance's claims are due again once their lease ends.
 */
import type { FastifyBaseLogger } from 'fastify';
import { stepMonitor, type MonitorEvent } from '../../machines/monitorMachine';
import type {
  ClaimedMonitor,
  MonitorRepository,
  RecordedCheck,
} from './repository';
import { causeOf, type CheckResult } from './check/siteCheck';
import { leasedWorker } from '../db/leasedWorker';

/** How the scheduler runs; the defaults are `MONITOR_*`'s (ADR-0104). */
export interface SchedulerSettings {
  /** Between two checks of a site, in ms (`MONITOR_INTERVAL_SECONDS`). */
  intervalMs: number;
  /**
   * Checks working at once on this instance (`MONITOR_CONCURRENCY`): a
   * check waiting for its site longer than `slotHoldMs` no longer counts.
   */
  concurrency: number;
  /**
   * How long a check holds its slot, in ms (default
   * {@link DEFAULT_SLOT_HOLD_MS}); it then waits outside the slots.
   */
  slotHoldMs?: number;
  /** How long a claim holds before another instance may take the site. */
  leaseMs: number;
  /** How often an idle instance looks for due sites, in ms. */
  pollMs: number;
  /** "Check now": at most one per account in this long, in ms (ADR-0106). */
  checkNowLimitMs: number;
  /** The clock every due time and lease is read on (the test's, in tests). */
  clock: () => Date;
  /** One check of one site (./check/siteCheck.ts's checkSite, with its settings). */
  check: (url: string, signal: AbortSignal) => Promise<CheckResult>;
  /** Tells the mail sender an alert was queued. */
  wakeSender: () => void;
  /** The embedded engine: one process, so claims left at start are orphans. */
  embedded: boolean;
  log: FastifyBaseLogger;
  /** Told of every check recorded, for `npm run bench:monitor`. */
  observe?: (observation: CheckObservation) => void;
  /** URLs trusted to be up (`MONITOR_CANARY_URLS`); none by default. */
  canaryUrls?: readonly string[];
}

/** Whether this instance's verdicts count (ADR-0122). */
export type MonitorHealth =
  | { status: 'ok'; canaries: number }
  | {
      status: 'inconclusive';
      /** Since when most canaries fail, on the scheduler's clock. */
      since: Date;
      failed: number;
      canaries: number;
    };

/** A recorded check as `observe` hears it. */
export interface CheckObservation {
  monitorId: string;
  /** When the check was due, and when it started (the scheduler's clock). */
  dueAt: Date;
  startedAt: Date;
  outcome: CheckResult['outcome'];
  /** The alerts its transition queued ("down", "up"). */
  alerts: readonly string[];
  /** Failed while most canaries failed too: it counted for nothing (ADR-0122). */
  inconclusive: boolean;
}

/** What a "check now" did (ADR-0106). */
export type CheckNowOutcome =
  | 'checked'
  /** No slot was free: the site is due at once (ADR-0121). */
  | 'queued'
  | 'limited'
  | 'running'
  | 'none'
  /** The owner's address is not confirmed (ADR-0120). */
  | 'unconfirmed'
  /** The site is paused (ADR-0127). */
  | 'paused';

/** The scheduler's controls. */
export interface MonitorScheduler {
  /** Releases orphaned claims (embedded engine), then checks what is due. */
  start(): Promise<void>;
  /** Looks for due sites now (after a sign-up committed). Never waits. */
  wake(): void;
  /**
   * Claims and checks everything due now, in rounds of `concurrency`, and
   * resolves once every result is written: for tests and benchmarks that
   * hold the clock. Not while the scheduler runs on its own.
   *
   * @returns how many checks it ran
   */
  runDue(): Promise<number>;
  /** Runs a site's check at once, and writes it, unless limited. */
  checkNow(accountId: string, siteId: string): Promise<CheckNowOutcome>;
  /** What the latest round of canaries found (`GET /healthz/monitor`). */
  health(): MonitorHealth;
  /**
   * Stops claiming, aborts the checks in flight and gives their claims
   * back, and writes the results already finished. Once: a second call
   * waits for the first.
   */
  stop(): Promise<void>;
}

/** Results written per statement. */
const RECORD_BATCH = 200;
/**
 * How long a check holds one of the `concurrency` slots, ms: a loopback
 * check takes about 1 ms, an honest site on the internet mostly well
 * under a second to answer; a check still waiting after this waits
 * outside the slots, costing a socket and a timer, not CPU. 1 s, not 2:
 * with 1,000 sites that never answer among 10,000, the honest sites' lag
 * p99 was 18 s at 2 s (`npm run bench:monitor -- --hostile`, ADR-0121).
 */
export const DEFAULT_SLOT_HOLD_MS = 1_000;
/**
 * Checks in flight, waiting or working, per slot: a waiting check costs a
 * socket and a timer, not CPU. At the default 50 slots, 500 checks, twice
 * what 1,000 sites that never answer cost at 10,000 sites a minute (each
 * waits out the 15 s time box: 250 at once).
 */
export const MAX_WAITING_PER_SLOT = 10;
/**
 * The least time between two claim statements, ms, unless a full claim
 * left more due and a quarter of the slots are free again. Claiming whenever a
 * check ended cost one statement per check (on the embedded engine, more
 * of the service's thread than the check itself: `npm run
 * bench:monitor`); spaced, a claim takes what fell due meanwhile, and a
 * site waits at most this long for its slot.
 */
const CLAIM_GAP_MS = 250;
/**
 * How long finished results wait for others before they are written, ms:
 * a statement's own cost is that of some 20 rows (on the embedded engine
 * about 1.2 ms, and 0.07 ms a row), so at 167 checks a second four
 * statements a second, not twenty. A result shows on `/` this much later.
 */
const GATHER_MS = 250;

/**
 * How long a round of canaries stands for the failed checks that ask, on
 * the scheduler's clock: at most one round per this long while sites fail.
 */
export const CANARY_FRESH_MS = 10_000;

/** The check aborted by a stop: nothing of it is written. */
class CheckAborted extends Error {
  constructor() {
    super('the check was aborted');
    this.name = 'CheckAborted';
  }
}

/**
 * @param repository the monitor's repository
 * @param settings see {@link SchedulerSettings}
 */
export function monitorScheduler(
  repository: MonitorRepository,
  settings: SchedulerSettings,
): MonitorScheduler {
  const { clock, log } = settings;
  let stopping: Promise<void> | undefined;
  const canaries = settings.canaryUrls ?? [];
  /** The latest round's verdict: null while the canaries answer. */
  let cutOff: { since: Date; failed: number } | null = null;
  /** When the latest round ended (the scheduler's clock, ms). */
  let lastRound = -Infinity;
  let round: Promise<boolean> | undefined;
  let canaryTimer: NodeJS.Timeout | undefined;
  const stopAll = new AbortController();

  /**
   * Checks every canary at once; most failing means this instance is cut
   * off. Said in the log once when it starts and once when it ends.
   *
   * @returns whether this instance is cut off
   */
  function canaryRound(): Promise<boolean> {
    round ??= (async () => {
      const results = await Promise.all(
        canaries.map((url) =>
          settings.check(url, stopAll.signal).then(
            (result) => result.outcome === 'up',
            () => false,
          ),
        ),
      );
      const failed = results.filter((up) => !up).length;
      const now = clock();
      lastRound = now.getTime();
      if (failed * 2 > canaries.length) {
        if (!cutOff) {
          log.error(
            { failed, canaries: canaries.length },
            "most canaries fail: this instance's failed checks are inconclusive, and no site is called down, until they answer again",
          );
        }
        cutOff = { since: cutOff?.since ?? now, failed };
      } else if (cutOff) {
        log.warn(
          { failed, canaries: canaries.length },
          'the canaries answer again: failed checks count again',
        );
        cutOff = null;
      }
      return cutOff !== null;
    })().finally(() => {
      round = undefined;
    });
    return round;
  }

  /** Whether a failed check must be held inconclusive (see the module comment). */
  async function isCutOff(): Promise<boolean> {
    if (canaries.length === 0) return false;
    if (clock().getTime() - lastRound < CANARY_FRESH_MS) return cutOff !== null;
    return canaryRound();
  }

  let toRecord: RecordedCheck[] = [];
  let gathering: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  /**
   * Runs one claimed check and works out its transition.
   *
   * @throws CheckAborted when `signal` aborts it (the scheduler stops)
   */
  async function run(
    monitor: ClaimedMonitor,
    signal: AbortSignal,
  ): Promise<RecordedCheck> {
    const checkedAt = clock();
    const aborted = new Promise<never>((_resolve, reject) => {
      const onAbort = () => reject(new CheckAborted());
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    const result = await Promise.race([
      settings.check(monitor.siteUrl, signal),
      aborted,
    ]);
    if (result.outcome !== 'up' && (await isCutOff())) {
      // Inconclusive: nothing of it counts; the site is checked again.
      return {
        monitor,
        result,
        checkedAt,
        state: monitor.state,
        context: monitor.context,
        alerts: [],
        nextCheckAt: new Date(clock().getTime() + settings.intervalMs / 3),
        inconclusive: true,
      };
    }
    const event: MonitorEvent =
      result.outcome === 'up'
        ? { type: 'check.up', at: checkedAt.getTime() }
        : {
            type: 'check.down',
            at: checkedAt.getTime(),
            reason: causeOf(result),
          };
    const step = stepMonitor(monitor.state, monitor.context, event);
    const finished = clock().getTime();
    // The site's own interval; a retest comes after a third of the base
    // one, so a failure is confirmed as soon on every schedule (ADR-0127).
    const intervalMs = settings.intervalMs * monitor.intervalFactor;
    let next = step.retest
      ? finished + settings.intervalMs / 3
      : monitor.dueAt.getTime() + intervalMs;
    // Behind by a whole interval (or a "check now" ahead of the
    // schedule): the next check a whole interval from now.
    if (
      !step.retest &&
      (next <= finished || monitor.dueAt.getTime() > finished)
    ) {
      next = Math.max(finished + intervalMs, monitor.dueAt.getTime());
    }
    return {
      monitor,
      result,
      checkedAt,
      state: step.state,
      context: step.context,
      alerts: step.alerts,
      nextCheckAt: new Date(next),
    };
  }

  /** Writes what has gathered, one batch at a time, in order. */
  function flush(): Promise<void> {
    clearTimeout(gathering);
    gathering = undefined;
    writing = writing.then(async () => {
      while (toRecord.length > 0) {
        const batch = toRecord.slice(0, RECORD_BATCH);
        toRecord = toRecord.slice(RECORD_BATCH);
        try {
          const { written, alertsQueued, parked } =
            await repository.record(batch);
          if (alertsQueued) settings.wakeSender();
          for (const monitor of parked) {
            // The others were written; this one is checked again once its
            // claim's lease ends.
            log.warn(
              { monitor },
              "the database refused this site's check result; the others of its batch were written",
            );
          }
          for (const check of batch) {
            if (!written.has(check.monitor.id)) {
              // Another claim holds the row now (this one outlived its
              // lease, or the account is gone): its result is dropped.
              log.debug(
                { monitor: check.monitor.id },
                'check result superseded',
              );
              continue;
            }
            settings.observe?.({
              monitorId: check.monitor.id,
              dueAt: check.monitor.dueAt,
              startedAt: check.checkedAt,
              outcome: check.result.outcome,
              alerts: check.alerts.map((alert) => alert.kind),
              inconclusive: check.inconclusive === true,
            });
          }
        } catch (error) {
          // The claims stay held: their sites are checked again once the
          // leases end.
          log.warn(
            { err: error },
            'could not write check results; will check again',
          );
        }
      }
    });
    return writing;
  }

  function gather(check: RecordedCheck): void {
    toRecord.push(check);
    if (toRecord.length >= RECORD_BATCH) void flush();
    else gathering ??= setTimeout(() => void flush(), GATHER_MS).unref();
  }

  const worker = leasedWorker<ClaimedMonitor>(
    {
      claim: (limit) => repository.claim(limit, settings.leaseMs, clock()),
      async work(monitor, signal) {
        try {
          gather(await run(monitor, signal));
        } catch (error) {
          // Aborted at stop: the claim is given back, the site checked again.
          if (!(error instanceof CheckAborted)) throw error;
        }
      },
      release: (monitors) => repository.release(monitors),
    },
    {
      concurrency: settings.concurrency,
      pollMs: settings.pollMs,
      slotHoldMs: settings.slotHoldMs ?? DEFAULT_SLOT_HOLD_MS,
      maxInFlight: settings.concurrency * MAX_WAITING_PER_SLOT,
      claimGapMs: CLAIM_GAP_MS,
      onStop: 'abort',
      what: 'checks',
      log,
    },
  );

  return {
    async start() {
      if (settings.embedded) await repository.releaseOrphans();
      if (canaries.length > 0) {
        void canaryRound();
        canaryTimer = setInterval(
          () => void canaryRound(),
          settings.intervalMs,
        ).unref();
      }
      worker.start();
    },

    health() {
      return cutOff
        ? {
            status: 'inconclusive',
            since: cutOff.since,
            failed: cutOff.failed,
            canaries: canaries.length,
          }
        : { status: 'ok', canaries: canaries.length };
    },

    wake() {
      worker.wake();
    },

    async runDue() {
      let ran = 0;
      for (;;) {
        const claimed = await repository.claim(
          settings.concurrency,
          settings.leaseMs,
          clock(),
        );
        if (claimed.length === 0) break;
        const checks = await Promise.all(
          claimed.map((monitor) => run(monitor, stopAll.signal)),
        );
        ran += checks.length;
        for (const check of checks) toRecord.push(check);
        await flush();
      }
      return ran;
    },

    async checkNow(accountId, siteId) {
      // Through the slots: with none free, the site is due at once and
      // the next free slot takes it.
      if (worker.freeSlots() <= 0) {
        const due = await repository.dueNow(
          accountId,
          siteId,
          settings.checkNowLimitMs,
          clock(),
        );
        return due ? 'queued' : 'limited';
      }
      const claim = await repository.claimNow(
        accountId,
        siteId,
        settings.leaseMs,
        settings.checkNowLimitMs,
        clock(),
      );
      if (claim.kind !== 'claimed') return claim.kind;
      await worker.runClaimed(claim.monitor);
      await flush();
      return 'checked';
    },

    stop() {
      stopping ??= (async () => {
        clearInterval(canaryTimer);
        stopAll.abort();
        await round;
        await worker.stop();
        await flush();
      })();
      return stopping;
    },
  };
}
