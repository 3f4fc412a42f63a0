/**
 * The monitor machine's test model: a site no check has reached yet (the
 * machine takes no input), and the two results a check can have. The
 * planner (./planner.ts) plans paths of results from the machine; a path's
 * checks are then dated as the scheduler would run them
 * ({@link scheduledChecks}), each failure with a reason of its own, so that
 * the mails' times and reasons say which check they came from.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import {
  monitorMachine,
  type MonitorEvent,
} from '../../machines/monitorMachine';
import { MonitorReference } from './monitorReference';
import type { ModelSpec } from './planner';

/** The results a check can have, as the planner's cases (dated later). */
export const monitorCases: MonitorEvent[] = [
  { type: 'check.up', at: 0 },
  { type: 'check.down', at: 0, reason: { code: 'unreachable' } },
];

export const monitorModel: ModelSpec<undefined> = {
  machine: monitorMachine,
  replayLogic: monitorMachine,
  inputs: [undefined],
  cases: monitorCases,
  abstract: (snapshot: AnyMachineSnapshot) =>
    JSON.stringify([snapshot.value, snapshot.context]),
  caseName: (event: EventObject) => event.type,
};

/** The model's check interval: 3 minutes, in ms. */
export const MODEL_INTERVAL_MS = 180_000;

/** When a path's first check runs: 2025-01-01 09:00 UTC, in ms. */
export const MODEL_FIRST_CHECK = Date.UTC(2025, 0, 1, 9, 0);

/**
 * A path's results as the scheduler would date them: the first at
 * {@link MODEL_FIRST_CHECK}, each next one an interval later, or a third
 * of one after a site the reference calls suspect (the retest). Failure
 * `n` of the path is a timeout whose detail is `check n`.
 *
 * @param cases the planned results (`check.up` or `check.down`)
 * @returns the checks, in order
 */
export function scheduledChecks(cases: readonly EventObject[]): MonitorEvent[] {
  const reference = new MonitorReference();
  let at = MODEL_FIRST_CHECK;
  return cases.map((event, index) => {
    const check: MonitorEvent =
      event.type === 'check.up'
        ? { type: 'check.up', at }
        : {
            type: 'check.down',
            at,
            reason: { code: 'timeout', detail: `check ${index + 1}` },
          };
    reference.step(check);
    at += reference.expectation().retest
      ? MODEL_INTERVAL_MS / 3
      : MODEL_INTERVAL_MS;
    return check;
  });
}
