/**
 * The site monitor's up/down machine: what one site's checks mean, and
 * which alert mails they queue (the up/down issue's requirement).
 *
 *   pending ──check.up──▶ up          pending, up ──check.down──▶ suspect
 *   suspect ──check.up──▶ up: nothing sent (one failure is no incident)
 *   suspect ──check.down──▶ down: the incident starts, "down" is queued
 *   down ──check.down──▶ down: nothing new sent, the latest reason kept
 *   down ──check.up──▶ up: "back up" is queued, with the incident's length
 *
 * `suspect` is retested after a third of the interval (its tag `retest`),
 * so a second failure in a row is found soon; the incident starts at the
 * first of them (`failingSince`), which the mails name.
 *
 * No actor runs per site: a site's state and context are kept in the
 * database, and the scheduler moves them with xstate's pure `transition()`
 * ({@link stepMonitor}), queueing the step's alerts in the mail outbox in
 * the same transaction as the new state. Only `suspect` → `down` queues
 * "down" and only `down` → `up` queues "back up", so an incident gives
 * exactly one of each, however many checks it lasts. The alerts reach the
 * service only as the named actions `queueDownAlert` and
 * `queueBackUpAlert`, which it reads from `transition()`'s result and never
 * runs; tests provide them with `machine.provide(...)` to record them on a
 * live actor. Each check is one event; the machine keeps no clock.
 */
import {
  assertEvent,
  assign,
  setup,
  transition,
  type ExecutableActionsFrom,
  type SnapshotFrom,
} from 'xstate';

/**
 * The states a site can be in, as the database stores them: `pending` (no
 * check yet), `up`, `suspect` (one failed check), `down` (a second failure
 * in a row: an incident).
 */
export type MonitorState = 'pending' | 'up' | 'suspect' | 'down';

/** Every {@link MonitorState}, in the order a site first passes them. */
export const MONITOR_STATES: readonly MonitorState[] = [
  'pending',
  'up',
  'suspect',
  'down',
];

/**
 * Why a check found a site down, as a code: `no_such_name` (DNS has no
 * address), `not_public` (refused by the address rule, or not http(s)),
 * `unreachable` (refused, reset, or no route), `timeout`, `certificate`,
 * `redirects` (too many), `status` (a final answer other than 2xx).
 */
export type DownReason =
  | 'no_such_name'
  | 'not_public'
  | 'unreachable'
  | 'timeout'
  | 'certificate'
  | 'redirects'
  | 'status';

/**
 * A failure as data: its {@link DownReason} and what the words about it
 * need. English is made only where a page or a mail is rendered
 * (server/monitor/words.ts), so a change of wording reaches the incidents
 * already open.
 *
 * `code: 'worded'` holds a reason stored as words before reason codes
 * (migration 0016): shown as it was written.
 */
export type DownCause =
  | {
      code: DownReason;
      /** A machine-readable detail: an error code, the phase that timed out, a refused address or scheme. */
      detail?: string;
      /** The final HTTP status, when one was received. */
      status?: number;
      /** The host of the hop that failed, cleaned. */
      host?: string;
      /** The limit that ran out, ms (`timeout`). */
      timeoutMs?: number;
      /** Redirects followed (`redirects`). */
      redirects?: number;
      /** The certificate's end, ISO 8601 (`certificate`). */
      validTo?: string;
    }
  | { code: 'worded'; words: string };

/**
 * One finished check of the site; `at`: when it ran, ms since the epoch;
 * `reason`: why it failed, as data.
 */
export type MonitorEvent =
  | { type: 'check.up'; at: number }
  | { type: 'check.down'; at: number; reason: DownCause };

/** What a site's state keeps beside its name (stored with it). */
export interface MonitorContext {
  /**
   * The first failed check of the failures in a row now going on (ms since
   * the epoch); null when the last check was up, or none has run.
   */
  failingSince: number | null;
  /** The latest failure's reason; null when the last check was up or none ran. */
  reason: DownCause | null;
}

/**
 * What the "down" mail says (the params of `queueDownAlert`): `startedAt`,
 * the incident's start, is `failingSince` (the first failed check of the
 * incident, ms since the epoch); `reason`, the failure that made it down.
 */
export interface DownAlert {
  startedAt: number;
  reason: DownCause;
}

/**
 * What the "back up" mail says (the params of `queueBackUpAlert`), in ms
 * since the epoch: `startedAt` as in {@link DownAlert}; `endedAt`, the `at`
 * of the check that found the site up. The incident lasted
 * `endedAt - startedAt` ms.
 */
export interface BackUpAlert {
  startedAt: number;
  endedAt: number;
}

/** An alert to queue in the mail outbox, with what its mail says. */
export type MonitorAlert =
  ({ kind: 'down' } & DownAlert) | ({ kind: 'up' } & BackUpAlert);

/** The context of a site that has not been checked yet. */
export const INITIAL_MONITOR_CONTEXT: MonitorContext = Object.freeze({
  failingSince: null,
  reason: null,
});

/** The failures' start; `suspect` and `down` are entered by one. */
function failingSinceOf({ failingSince }: MonitorContext): number {
  if (failingSince === null) {
    throw new Error('no failed check: an incident starts at one');
  }
  return failingSince;
}

/** The latest failure's reason; `suspect` and `down` keep one. */
function reasonOf({ reason }: MonitorContext): DownCause {
  if (reason === null) throw new Error('no failed check: no reason kept');
  return reason;
}

interface ActionArgs {
  context: MonitorContext;
  event: MonitorEvent;
}

/** The "down" mail: since the first failure, for the second's reason. */
const downAlert = ({ context, event }: ActionArgs): DownAlert => {
  assertEvent(event, 'check.down');
  return { startedAt: failingSinceOf(context), reason: event.reason };
};

/** The "back up" mail: from the first failure to the check found up. */
const backUpAlert = ({ context, event }: ActionArgs): BackUpAlert => {
  assertEvent(event, 'check.up');
  return { startedAt: failingSinceOf(context), endedAt: event.at };
};

/** `pending` and `up`: a failure makes the site suspect, not down yet. */
const becomeSuspect = {
  'check.down': { target: 'suspect', actions: 'startFailing' },
} as const;

/**
 * The machine (see the top of this file), with no input: every site starts
 * `pending` with {@link INITIAL_MONITOR_CONTEXT}. The service never runs it
 * as an actor: {@link stepMonitor}.
 */
export const monitorMachine = setup({
  types: {
    context: {} as MonitorContext,
    events: {} as MonitorEvent,
    tags: {} as 'checked' | 'retest' | 'incident',
  },
  actions: {
    // The first failure of a run: the incident, if it becomes one, starts here.
    startFailing: assign(({ event }) => {
      assertEvent(event, 'check.down');
      return { failingSince: event.at, reason: event.reason };
    }),
    // A failure in a run already going on: its start stays the first's.
    noteReason: assign(({ event }) => {
      assertEvent(event, 'check.down');
      return { reason: event.reason };
    }),
    clearFailing: assign({ failingSince: null, reason: null }),
    // The service's (the scheduler): read from `transition()`'s actions
    // and written to the mail outbox in the state change's transaction.
    queueDownAlert: (_, _alert: DownAlert) => {},
    queueBackUpAlert: (_, _alert: BackUpAlert) => {},
  },
}).createMachine({
  id: 'monitor',
  context: INITIAL_MONITOR_CONTEXT,
  initial: 'pending',
  states: {
    pending: {
      on: { 'check.up': { target: 'up' }, ...becomeSuspect },
    },
    // A check up while up changes nothing: no transition.
    up: { tags: 'checked', on: becomeSuspect },
    // One failure is not an incident: retested after a third of the
    // interval, and forgotten, with nothing sent, if that check is up.
    suspect: {
      tags: ['checked', 'retest'],
      on: {
        'check.up': { target: 'up', actions: 'clearFailing' },
        'check.down': {
          target: 'down',
          actions: [
            'noteReason',
            { type: 'queueDownAlert', params: downAlert },
          ],
        },
      },
    },
    // The incident: its "down" mail went on the way in, and more failures
    // send nothing until it ends.
    down: {
      tags: ['checked', 'incident'],
      on: {
        'check.down': { actions: 'noteReason' },
        'check.up': {
          target: 'up',
          // Before `clearFailing`: an action's params are read from the
          // context the actions before it left.
          actions: [
            { type: 'queueBackUpAlert', params: backUpAlert },
            'clearFailing',
          ],
        },
      },
    },
  },
});

type MonitorSnapshot = SnapshotFrom<typeof monitorMachine>;

/** Whether a value read from storage is one of the {@link MonitorState}s. */
export function isMonitorState(value: unknown): value is MonitorState {
  return MONITOR_STATES.some((state) => state === value);
}

/**
 * Whether a context can go with a state: no failure kept while `pending`
 * or `up`; while `suspect` or `down`, the failures' start (a finite number
 * of ms) and the latest reason.
 */
function fits(state: MonitorState, context: MonitorContext): boolean {
  const { failingSince, reason } = context;
  if (state === 'pending' || state === 'up') {
    return failingSince === null && reason === null;
  }
  return (
    Number.isFinite(failingSince) &&
    typeof reason === 'object' &&
    reason !== null &&
    typeof reason.code === 'string'
  );
}

/**
 * A stored site as a snapshot of the machine, for `transition()` and the
 * selectors below.
 *
 * @param state the stored state
 * @param context the stored context; only its two fields are read, and a
 *   copy is kept
 * @returns the snapshot, its context a fresh object
 * @throws Error when the stored shape is none the machine can be in (an
 *   unknown state, or a context that does not fit it: see {@link fits}).
 *   Starting such a site over would lose an incident going on and mail a
 *   second "down" for it; refusing rolls the check's transaction back,
 *   queues nothing, and the error is reported.
 */
export function restoreMonitor(
  state: MonitorState,
  context: MonitorContext,
): MonitorSnapshot {
  const kept: MonitorContext = {
    failingSince: context.failingSince,
    reason: context.reason,
  };
  if (!isMonitorState(state) || !fits(state, kept)) {
    throw new Error(
      `stored monitor state ${JSON.stringify({ state, context: kept })} is none the monitor machine can be in`,
    );
  }
  return monitorMachine.resolveState({ value: state, context: kept });
}

/** An alert action of `transition()`'s result as the outbox takes it. */
function alertsOf(
  action: ExecutableActionsFrom<typeof monitorMachine>,
): MonitorAlert[] {
  // xstate types `params` as the union of every action's: the type says
  // which one it is.
  if (action.type === 'queueDownAlert') {
    return [{ kind: 'down', ...(action.params as DownAlert) }];
  }
  // Stryker disable next-line ConditionalExpression: transition() returns no other action today (docs/mutation.md)
  if (action.type === 'queueBackUpAlert') {
    return [{ kind: 'up', ...(action.params as BackUpAlert) }];
  }
  // `assign`s are applied inside `transition()` and never returned; any
  // other action a later change adds is no mail.
  // Stryker disable next-line ArrayDeclaration: unreachable while the two alerts are the machine's only other actions (docs/mutation.md)
  return [];
}

/**
 * One check's result applied to a stored site with xstate's pure
 * `transition()` (restored by {@link restoreMonitor}): what the scheduler
 * writes back, in one transaction.
 *
 * @param state the site's stored state
 * @param context its stored context (not changed)
 * @param event the check that just finished
 * @returns the next state and context (a new object), the alerts to queue
 *   in the mail outbox in the same transaction, in order, and `retest`:
 *   whether the next check comes after a third of the interval (the site
 *   is `suspect`), not a whole one. An event the state does not handle
 *   leaves everything as it was, with no alert.
 * @throws Error for a stored shape the machine cannot be in
 *   ({@link restoreMonitor})
 */
export function stepMonitor(
  state: MonitorState,
  context: MonitorContext,
  event: MonitorEvent,
): {
  state: MonitorState;
  context: MonitorContext;
  alerts: MonitorAlert[];
  retest: boolean;
} {
  const [next, actions] = transition(
    monitorMachine,
    restoreMonitor(state, context),
    event,
  );
  return {
    state: next.value,
    context: {
      failingSince: next.context.failingSince,
      reason: next.context.reason,
    },
    alerts: actions.flatMap(alertsOf),
    retest: selectRetest(next),
  };
}

/** Whether the site is retested after a third of the interval (`suspect`). */
export function selectRetest(snapshot: MonitorSnapshot): boolean {
  return snapshot.hasTag('retest');
}

/** Whether any check of the site has run: false only while `pending`. */
export function selectChecked(snapshot: MonitorSnapshot): boolean {
  return snapshot.hasTag('checked');
}

/**
 * The incident going on (`down`): since when (the first failed check, ms
 * since the epoch) and the latest failure's reason; null when none is.
 */
export function selectIncident(snapshot: MonitorSnapshot): DownAlert | null {
  if (!snapshot.hasTag('incident')) return null;
  const { context } = snapshot;
  return { startedAt: failingSinceOf(context), reason: reasonOf(context) };
}
