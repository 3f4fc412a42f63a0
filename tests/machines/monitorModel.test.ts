/**
 * Model-based tests of the monitor machine, machine level, as
 * tests/machines/model.test.ts does for the page's machines: paths of
 * check results planned from the real machine
 * (harness/model/planner.ts), dated as the scheduler runs them, each
 * run on a live actor with its alerts recorded and, beside it, through
 * `stepMonitor` from the stored state the step before left, as the service
 * runs it. After every step both must show what the hand-written reference
 * (harness/model/monitorReference.ts, from the requirement, never
 * from the machine) expects, and queue the alerts it names; over a whole
 * path, each incident gives one "down" and one "back up" mail. Every
 * transition the machine defines must be covered. Then every sequence of
 * up to eight checks, judged the same way.
 */
import { describe, expect, it } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import {
  INITIAL_MONITOR_CONTEXT,
  monitorMachine,
  selectChecked,
  selectIncident,
  selectRetest,
  stepMonitor,
  type BackUpAlert,
  type DownAlert,
  type MonitorAlert,
  type MonitorContext,
  type MonitorEvent,
  type MonitorState,
} from '../../machines/monitorMachine';
import { describePath } from '../../harness/model/modelRun';
import {
  MonitorReference,
  incidentAlerts,
  type MonitorExpectation,
} from '../../harness/model/monitorReference';
import {
  MODEL_FIRST_CHECK,
  MODEL_INTERVAL_MS,
  monitorModel,
  scheduledChecks,
} from '../../harness/model/monitorModel';
import { planPaths } from '../../harness/model/planner';
import {
  recordTransitions,
  reportCoverage,
  type TransitionRecord,
} from '../../harness/model/transitions';

/** The site as the page and the scheduler read it from a live actor. */
function actorView(
  snapshot: SnapshotFrom<typeof monitorMachine>,
): MonitorExpectation {
  const { failingSince, reason } = snapshot.context;
  return {
    state: snapshot.value,
    context: { failingSince, reason },
    retest: selectRetest(snapshot),
    checked: selectChecked(snapshot),
    incident: selectIncident(snapshot),
  };
}

/**
 * One path run on a live actor, with its alerts recorded, and through
 * `stepMonitor`, each step judged against the reference.
 *
 * @returns the alerts the actor queued, in order
 */
function runChecks(
  checks: readonly MonitorEvent[],
  inspect?: ReturnType<typeof recordTransitions>['inspect'],
): MonitorAlert[] {
  const queued: MonitorAlert[] = [];
  const actor = createActor(
    monitorMachine.provide({
      actions: {
        queueDownAlert: (_, alert: DownAlert) => {
          queued.push({ kind: 'down', ...alert });
        },
        queueBackUpAlert: (_, alert: BackUpAlert) => {
          queued.push({ kind: 'up', ...alert });
        },
      },
    }),
    { inspect },
  ).start();
  const reference = new MonitorReference();
  expect(actorView(actor.getSnapshot()), 'at the start').toEqual(
    reference.expectation(),
  );
  // The service's way: the row as stored, and the step's outbox rows.
  let stored: { state: MonitorState; context: MonitorContext } = {
    state: 'pending',
    context: INITIAL_MONITOR_CONTEXT,
  };
  const stepped: MonitorAlert[] = [];

  checks.forEach((check, index) => {
    const step = `after check ${index + 1} (${check.type})`;
    const before = queued.length;
    actor.send(check);
    const alerts = reference.step(check);
    const expected = reference.expectation();
    expect(actorView(actor.getSnapshot()), step).toEqual(expected);
    expect(queued.slice(before), `${step}: alerts`).toEqual(alerts);

    const result = stepMonitor(stored.state, stored.context, check);
    expect(result, `${step}, through stepMonitor`).toEqual({
      state: expected.state,
      context: expected.context,
      alerts,
      retest: expected.retest,
    });
    stepped.push(...result.alerts);
    stored = { state: result.state, context: result.context };
  });
  actor.stop();

  // One "down" and one "back up" per incident, whatever the path.
  expect(queued, 'the mails of the whole path').toEqual(incidentAlerts(checks));
  expect(stepped, 'the mails of the whole path, stepped').toEqual(queued);
  return queued;
}

describe('monitorMachine, machine level', () => {
  const paths = planPaths(monitorModel);
  const covered: TransitionRecord[] = [];

  for (const path of paths) {
    it(describePath(monitorModel, path), () => {
      const { record, inspect } = recordTransitions(monitorMachine.id);
      covered.push(record);
      runChecks(scheduledChecks(path.events), inspect);
    });
  }

  it('covers every transition the machine defines', () => {
    expect(
      reportCoverage(monitorMachine, covered, paths.length, 'machine level'),
    ).toEqual([]);
  });
});

describe('monitorMachine, every sequence of up to eight checks', () => {
  /** Every sequence of `length` results, `check.up` and `check.down`. */
  const sequences = (length: number): MonitorEvent['type'][][] =>
    length === 0
      ? [[]]
      : sequences(length - 1).flatMap((rest) => [
          [...rest, 'check.up' as const],
          [...rest, 'check.down' as const],
        ]);

  it('shows and queues what the reference says after every check', () => {
    let runs = 0;
    let mails = 0;
    for (let length = 1; length <= 8; length += 1) {
      for (const sequence of sequences(length)) {
        const checks = scheduledChecks(sequence.map((type) => ({ type })));
        mails += runChecks(checks).length;
        runs += 1;
      }
    }
    // 2 + 4 + … + 256 sequences; their mails checked one by one above.
    expect(runs).toBe(510);
    expect(mails).toBeGreaterThan(0);
  });

  it('dates a path as the scheduler runs it: a suspect site is retested after a third of the interval', () => {
    const minute = MODEL_INTERVAL_MS / 3;
    const checks = scheduledChecks(
      ['check.down', 'check.down', 'check.down', 'check.up'].map((type) => ({
        type,
      })),
    );
    expect(checks.map((check) => check.at - MODEL_FIRST_CHECK)).toEqual([
      0,
      minute,
      minute + MODEL_INTERVAL_MS,
      minute + 2 * MODEL_INTERVAL_MS,
    ]);
    // The incident lasted from the first failure to the check found up.
    expect(runChecks(checks)).toEqual([
      {
        kind: 'down',
        startedAt: MODEL_FIRST_CHECK,
        reason: { code: 'timeout', detail: 'check 2' },
      },
      {
        kind: 'up',
        startedAt: MODEL_FIRST_CHECK,
        endedAt: MODEL_FIRST_CHECK + 7 * minute,
      },
    ]);
  });
});
