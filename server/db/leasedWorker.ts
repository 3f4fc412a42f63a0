/**
 * The loop of the service's leased workers (the site monitor's checks,
 * the outbox's deliveries), written once: it claims due rows with a lease
 * (./dueClaim.ts) into free slots, works on each as it arrives, and claims
 * again as slots free up, when woken, and every poll interval.
 *
 * - **Slots.** At most `concurrency` items are worked on at once. With
 *   `slotHoldMs`, an item that takes longer gives its slot to the next due
 *   one and goes on outside the slots (a site that never answers, a slow
 *   receiver), up to `maxInFlight` items in all.
 * - **Claims.** One claim statement at a time, at most one every
 *   `claimGapMs` unless the last claim filled every free slot (behind) and
 *   a quarter of the slots are free: a claim per finished item would cost
 *   a statement per item under load, and waiting for half the slots kept
 *   claims too small to keep up behind items that hold their slot long
 *   (`npm run bench:monitor -- --hostile`, ADR-0121).
 * - **Stop.** Claiming stops; what is in flight either finishes
 *   (`onStop: 'finish'`: a send half done is finished and marked) or is
 *   aborted and given back at once (`'abort'`: a check is simply run
 *   again by whoever claims it next).
 *
 * What an item's work does with its outcome (write it, retry it) is the
 * work's own; the loop only keeps the slots, the claims and the stop.
 */
import type { FastifyBaseLogger } from 'fastify';

/** One kind of leased work. */
export interface LeasedWork<Item> {
  /**
   * Claims up to `limit` due items with a lease, in one autocommit
   * statement.
   *
   * @throws when the database fails (the loop logs it and polls again)
   */
  claim(limit: number): Promise<Item[]>;
  /**
   * Works on one claimed item and records its outcome. An item's own
   * failure is an outcome to record, not a throw; a throw is logged.
   *
   * @param signal aborted when the worker stops with `onStop: 'abort'`
   */
  work(item: Item, signal: AbortSignal): Promise<void>;
  /**
   * Gives back claimed items nobody will work on (at stop), so that they
   * are due again before their lease ends.
   */
  release(items: readonly Item[]): Promise<void>;
}

/** How the loop runs. */
export interface LeasedWorkerSettings {
  /** Items worked on at once. */
  concurrency: number;
  /** How often an idle worker looks for due items, in ms. */
  pollMs: number;
  /**
   * How long an item holds its slot, in ms; it then goes on outside the
   * slots. Default: until its work ends.
   */
  slotHoldMs?: number | undefined;
  /** Items in flight at most, in and out of the slots (default `concurrency`). */
  maxInFlight?: number | undefined;
  /** The least time between two claims while not behind, in ms (default 0). */
  claimGapMs?: number | undefined;
  /**
   * Whether an item's end (or its slot given up) looks for more at once
   * (default `always`). `whenBehind`: only when the last claim filled
   * every free slot, or a look found no slot free; otherwise new items
   * come with a `wake` (the commit that queued them) or the poll. For
   * work whose items become due only by someone's commit (the outbox's
   * POSTs): a look after each end mostly finds nothing.
   */
  claimAfterWork?: 'always' | 'whenBehind' | undefined;
  /** What stop does with the items in flight (see the module comment). */
  onStop: 'finish' | 'abort';
  /** What the worker works on, for its log lines ("checks", "deliveries"). */
  what: string;
  log: FastifyBaseLogger;
}

/** A running loop's controls. */
export interface LeasedWorker<Item> {
  /** Starts claiming. */
  start(): void;
  /** Looks for due items now (after a commit that made one). Never waits. */
  wake(): void;
  /** Looks for due items in `ms` (a retry due sooner than the next poll). */
  wakeIn(ms: number): void;
  /** Slots free now (none past `maxInFlight`). */
  freeSlots(): number;
  /**
   * Works on an item claimed outside the loop (a "check now"), tracked as
   * in flight so that stop aborts or awaits it, without taking a slot.
   */
  runClaimed(item: Item): Promise<void>;
  /**
   * Resolves once a claim found nothing due and nothing is in flight
   * (tests, benchmarks). Claims by itself, started or not.
   *
   * @returns how many items its claims took (0: nothing was due)
   */
  drain(): Promise<number>;
  /** Stops (see the module comment). Once: a second call waits for the first. */
  stop(): Promise<void>;
}

/**
 * Makes the loop of one kind of leased work (see the module comment).
 *
 * @param work how items are claimed, worked on and given back
 * @param settings the slots, the poll, the claims' spacing, the stop
 * @returns the loop's controls; nothing runs before `start` (or `drain`)
 */
export function leasedWorker<Item>(
  work: LeasedWork<Item>,
  settings: LeasedWorkerSettings,
): LeasedWorker<Item> {
  const { concurrency, log } = settings;
  const maxInFlight = settings.maxInFlight ?? concurrency;
  const claimGapMs = settings.claimGapMs ?? 0;
  const inFlight = new Map<
    Item,
    { abort: AbortController; done: Promise<void> }
  >();
  /** Items in flight that hold a slot. */
  let working = 0;
  let started = false;
  let stopped = false;
  let stopping: Promise<void> | undefined;
  let claiming: Promise<number> | undefined;
  let claimAgain = false;
  let idle: NodeJS.Timeout | undefined;
  let spaced: NodeJS.Timeout | undefined;
  /** A look sooner than the poll (wakeIn), and when it is due. */
  let soon: NodeJS.Timeout | undefined;
  let soonAt = Infinity;
  /** When the last claim statement started (performance.now()). */
  let lastClaim = -Infinity;
  /** The last claim filled every free slot: more may be due. */
  let behind = false;
  /** A look since the last claim found no slot free. */
  let starved = false;
  /** After an item's end or its slot given up (see `claimAfterWork`). */
  const afterWork = () => {
    if (settings.claimAfterWork !== 'whenBehind' || behind || starved) pump();
  };
  /** Called whenever an item ends (drain waits on it). */
  let ended: (() => void) | undefined;

  const freeSlots = () =>
    Math.min(concurrency - working, maxInFlight - inFlight.size);

  /** Works on one item; `slot`: whether it holds one of the slots. */
  function launch(item: Item, slot: boolean): Promise<void> {
    const abort = new AbortController();
    let holding = slot;
    if (slot) working += 1;
    const giveBack = () => {
      if (!holding) return;
      holding = false;
      working -= 1;
    };
    const held =
      slot && settings.slotHoldMs !== undefined
        ? setTimeout(() => {
            giveBack();
            afterWork();
          }, settings.slotHoldMs).unref()
        : undefined;
    const done = work
      .work(item, abort.signal)
      .catch((error: unknown) => {
        log.error({ err: error }, `one of the ${settings.what} failed to run`);
      })
      .finally(() => {
        clearTimeout(held);
        giveBack();
        inFlight.delete(item);
        ended?.();
        afterWork();
      });
    inFlight.set(item, { abort, done });
    return done;
  }

  /** One claim of the free slots' worth; how many items it claimed. */
  async function claimOnce(free: number): Promise<number> {
    const claimed = await work.claim(free);
    if (stopped && settings.onStop === 'abort') {
      await work.release(claimed);
      return claimed.length;
    }
    for (const item of claimed) void launch(item, true);
    behind = claimed.length === free;
    if (behind) claimAgain = true;
    return claimed.length;
  }

  /** Fills the free slots with due items (see the module comment). */
  function pump(): void {
    if (stopped || !started) return;
    if (claiming) {
      claimAgain = true;
      return;
    }
    const free = freeSlots();
    if (free <= 0) {
      // The items pump when they end; an item run outside the slots does not.
      starved = true;
      clearTimeout(idle);
      idle = setTimeout(pump, settings.pollMs).unref();
      return;
    }
    const wait = lastClaim + claimGapMs - performance.now();
    if (wait > 0 && !(behind && free * 4 >= concurrency)) {
      spaced ??= setTimeout(() => {
        spaced = undefined;
        pump();
      }, wait).unref();
      return;
    }
    clearTimeout(spaced);
    spaced = undefined;
    claimAgain = false;
    starved = false;
    lastClaim = performance.now();
    claiming = claimOnce(free)
      .catch((error: unknown) => {
        log.warn(
          { err: error },
          `could not claim due ${settings.what}; will retry`,
        );
        return 0;
      })
      .finally(() => {
        claiming = undefined;
        if (stopped) return;
        clearTimeout(idle);
        idle = setTimeout(pump, settings.pollMs).unref();
        if (claimAgain) pump();
      });
  }

  return {
    start() {
      if (stopped) return;
      started = true;
      pump();
    },

    wake() {
      pump();
    },

    wakeIn(ms) {
      if (stopped) return;
      const at = performance.now() + ms;
      if (soon && soonAt <= at) return;
      clearTimeout(soon);
      soonAt = at;
      soon = setTimeout(() => {
        soon = undefined;
        pump();
      }, ms).unref();
    },

    freeSlots,

    runClaimed(item) {
      return launch(item, false);
    },

    async drain() {
      let took = 0;
      for (;;) {
        if (stopped) return took;
        await claiming;
        const free = freeSlots();
        const claimed =
          free > 0
            ? await (claiming = claimOnce(free)).finally(() => {
                claiming = undefined;
              })
            : 0;
        took += claimed;
        if (claimed === 0 && inFlight.size === 0) return took;
        if (inFlight.size > 0) {
          await new Promise<void>((resolve) => {
            ended = resolve;
          });
          ended = undefined;
        }
      }
    },

    stop() {
      stopping ??= (async () => {
        // A wake spaced after the last claim is kept when what is in
        // flight finishes: an item made just before the stop goes too.
        const woken = spaced !== undefined && settings.onStop === 'finish';
        stopped = true;
        clearTimeout(idle);
        clearTimeout(spaced);
        clearTimeout(soon);
        // A claim under way: its items are worked on ('finish') or given
        // back ('abort').
        await claiming;
        const free = freeSlots();
        if (woken && free > 0) {
          await claimOnce(free).catch((error: unknown) => {
            log.warn({ err: error }, `could not claim due ${settings.what}`);
          });
        }
        const running = [...inFlight.entries()];
        if (settings.onStop === 'abort') {
          for (const [, { abort }] of running) abort.abort();
          await work
            .release(running.map(([item]) => item))
            .catch((error: unknown) =>
              log.warn(
                { err: error },
                `could not give back the ${settings.what} in flight`,
              ),
            );
        }
        await Promise.all(running.map(([, { done }]) => done));
      })();
      return stopping;
    },
  };
}
