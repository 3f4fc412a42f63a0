/**
 * The monitor machine against the up/down requirement, on a live actor
 * with its alerts recorded and through `stepMonitor`, the service's way:
 * down only after two failed checks in a row, one "down" and one "back up"
 * mail per incident, nothing sent for a single failure, each stored state
 * restored, the input never changed, the retest flag, and what a stored
 * shape the machine cannot be in does (it is refused). The expectations
 * are written here from the requirement; every path of the machine is
 * tests/machines/monitorModel.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  INITIAL_MONITOR_CONTEXT,
  MONITOR_STATES,
  isMonitorState,
  monitorMachine,
  restoreMonitor,
  selectChecked,
  selectIncident,
  selectRetest,
  stepMonitor,
  type BackUpAlert,
  type DownAlert,
  type DownCause,
  type MonitorAlert,
  type MonitorContext,
  type MonitorEvent,
  type MonitorState,
} from '../../machines/monitorMachine';

/** 2025-03-01 12:00 UTC, and minutes after it, in ms since the epoch. */
const NOON = Date.UTC(2025, 2, 1, 12, 0);
const minutes = (n: number) => NOON + n * 60_000;

const up = (minute: number): MonitorEvent => ({
  type: 'check.up',
  at: minutes(minute),
});
/** Failures as the checker reports them (machines/monitorMachine.ts's DownCause). */
const REFUSED: DownCause = { code: 'unreachable', detail: 'ECONNREFUSED' };
const TIMED_OUT: DownCause = {
  code: 'timeout',
  detail: 'headers',
  timeoutMs: 10_000,
};
const http = (status: number): DownCause => ({ code: 'status', status });

const down = (minute: number, reason: DownCause = REFUSED): MonitorEvent => ({
  type: 'check.down',
  at: minutes(minute),
  reason,
});

/** A live actor of the machine, with the alerts it queues recorded. */
function startMonitor() {
  const alerts: MonitorAlert[] = [];
  const actor = createActor(
    monitorMachine.provide({
      actions: {
        queueDownAlert: (_, alert: DownAlert) => {
          alerts.push({ kind: 'down', ...alert });
        },
        queueBackUpAlert: (_, alert: BackUpAlert) => {
          alerts.push({ kind: 'up', ...alert });
        },
      },
    }),
  ).start();
  const checks = (...events: MonitorEvent[]) => {
    for (const event of events) actor.send(event);
    return actor.getSnapshot().value;
  };
  return { actor, alerts, checks };
}

/** The checks applied one after another from a new site, as the service does. */
function stepAll(events: MonitorEvent[]) {
  let state: MonitorState = 'pending';
  let context: MonitorContext = INITIAL_MONITOR_CONTEXT;
  const alerts: MonitorAlert[] = [];
  for (const event of events) {
    const result = stepMonitor(state, context, event);
    ({ state, context } = result);
    alerts.push(...result.alerts);
  }
  return { state, context, alerts };
}

describe('monitorMachine: down only after a second failed check in a row', () => {
  it('a new site is pending, with nothing kept', () => {
    const snapshot = startMonitor().actor.getSnapshot();
    expect(snapshot.value).toBe('pending');
    expect(snapshot.context).toEqual({ failingSince: null, reason: null });
    expect(INITIAL_MONITOR_CONTEXT).toEqual({
      failingSince: null,
      reason: null,
    });
  });

  it('pending: a first check up makes it up', () => {
    expect(startMonitor().checks(up(0))).toBe('up');
  });

  it('pending: one failure makes it suspect, the second down', () => {
    const { checks, actor } = startMonitor();
    expect(checks(down(0, TIMED_OUT))).toBe('suspect');
    expect(actor.getSnapshot().context).toEqual({
      failingSince: minutes(0),
      reason: TIMED_OUT,
    });
    expect(checks(down(1, http(503)))).toBe('down');
    expect(actor.getSnapshot().context).toEqual({
      failingSince: minutes(0),
      reason: http(503),
    });
  });

  it('up: one failure makes it suspect, the second down', () => {
    const { checks } = startMonitor();
    expect(checks(up(0), down(3))).toBe('suspect');
    expect(checks(down(4))).toBe('down');
  });

  it('failures with a check up between them are not in a row', () => {
    const { checks, alerts } = startMonitor();
    expect(checks(down(0), up(1), down(4), up(5), down(8))).toBe('suspect');
    expect(alerts).toEqual([]);
  });

  it('the same, through stepMonitor', () => {
    expect(stepAll([down(0)]).state).toBe('suspect');
    expect(stepAll([down(0), down(1)]).state).toBe('down');
    expect(stepAll([up(0), down(3), down(4)]).state).toBe('down');
    expect(stepAll([down(0), up(1), down(4)]).state).toBe('suspect');
  });
});

describe('monitorMachine: one "down" and one "back up" alert per incident', () => {
  // Failures at 12:00, 12:01 (the retest), 12:04, 12:07; up at 12:10.
  const incident = [
    up(-3),
    down(0, TIMED_OUT),
    down(1, http(503)),
    down(4, http(502)),
    down(7, TIMED_OUT),
    up(10),
  ];
  const expected: MonitorAlert[] = [
    { kind: 'down', startedAt: minutes(0), reason: http(503) },
    { kind: 'up', startedAt: minutes(0), endedAt: minutes(10) },
  ];

  it('queues "down" at the second failure, nothing at the later ones, "back up" at the end', () => {
    const { checks, alerts } = startMonitor();
    checks(...incident.slice(0, 2));
    expect(alerts).toEqual([]);
    checks(...incident.slice(2, 3));
    expect(alerts).toEqual(expected.slice(0, 1));
    expect(checks(...incident.slice(3, 5))).toBe('down');
    expect(alerts).toEqual(expected.slice(0, 1));
    expect(checks(...incident.slice(5))).toBe('up');
    expect(alerts).toEqual(expected);
  });

  it('the "back up" alert gives the incident length from its first failure: 10 minutes', () => {
    const { alerts } = stepAll(incident);
    expect(alerts).toEqual(expected);
    const backUp = alerts[1];
    if (backUp?.kind !== 'up') throw new Error('no back-up alert');
    expect(backUp.endedAt - backUp.startedAt).toBe(10 * 60_000);
  });

  it('a down site keeps the latest reason, and its incident', () => {
    const { actor, checks } = startMonitor();
    checks(...incident.slice(0, 5));
    expect(actor.getSnapshot().context).toEqual({
      failingSince: minutes(0),
      reason: TIMED_OUT,
    });
    expect(selectIncident(actor.getSnapshot())).toEqual({
      startedAt: minutes(0),
      reason: TIMED_OUT,
    });
  });

  it('two incidents give two of each, each from its own first failure', () => {
    const { checks, alerts } = startMonitor();
    checks(
      down(0),
      down(1),
      up(4),
      up(7),
      down(10, { code: 'no_such_name', host: 'site.test' }),
      down(11),
      up(14),
    );
    expect(alerts).toEqual([
      { kind: 'down', startedAt: minutes(0), reason: REFUSED },
      { kind: 'up', startedAt: minutes(0), endedAt: minutes(4) },
      { kind: 'down', startedAt: minutes(10), reason: REFUSED },
      { kind: 'up', startedAt: minutes(10), endedAt: minutes(14) },
    ]);
  });

  it('an incident still going on has given its "down" alert only', () => {
    expect(stepAll([down(0), down(1), down(4), down(7)]).alerts).toEqual([
      { kind: 'down', startedAt: minutes(0), reason: REFUSED },
    ]);
  });
});

describe('monitorMachine: a single failure sends nothing', () => {
  it('suspect → up queues no alert and forgets the failure', () => {
    const { actor, checks, alerts } = startMonitor();
    expect(checks(up(0), down(3), up(4))).toBe('up');
    expect(alerts).toEqual([]);
    expect(actor.getSnapshot().context).toEqual({
      failingSince: null,
      reason: null,
    });
  });

  it('the same, through stepMonitor', () => {
    expect(
      stepMonitor(
        'suspect',
        { failingSince: minutes(0), reason: TIMED_OUT },
        up(1),
      ),
    ).toEqual({
      state: 'up',
      context: { failingSince: null, reason: null },
      alerts: [],
      retest: false,
    });
  });

  it('a check up while up changes nothing', () => {
    const { actor, checks, alerts } = startMonitor();
    checks(up(0));
    const before = actor.getSnapshot();
    expect(checks(up(3))).toBe('up');
    expect(actor.getSnapshot().context).toEqual(before.context);
    expect(alerts).toEqual([]);
  });
});

describe('stepMonitor: from each stored state', () => {
  const failing: MonitorContext = {
    failingSince: minutes(0),
    reason: TIMED_OUT,
  };
  const cleared = INITIAL_MONITOR_CONTEXT;
  /** A stored site, a check, and what the requirement says comes next. */
  interface Case {
    from: MonitorState;
    stored: MonitorContext;
    check: MonitorEvent;
    to: MonitorState;
    context: MonitorContext;
    alerts: MonitorAlert[];
  }
  const cases: Case[] = [
    {
      from: 'pending',
      stored: cleared,
      check: up(0),
      to: 'up',
      context: cleared,
      alerts: [],
    },
    {
      from: 'pending',
      stored: cleared,
      check: down(0, TIMED_OUT),
      to: 'suspect',
      context: failing,
      alerts: [],
    },
    {
      from: 'up',
      stored: cleared,
      check: up(3),
      to: 'up',
      context: cleared,
      alerts: [],
    },
    {
      from: 'up',
      stored: cleared,
      check: down(0, TIMED_OUT),
      to: 'suspect',
      context: failing,
      alerts: [],
    },
    {
      from: 'suspect',
      stored: failing,
      check: up(1),
      to: 'up',
      context: cleared,
      alerts: [],
    },
    {
      from: 'suspect',
      stored: failing,
      check: down(1, http(500)),
      to: 'down',
      context: { failingSince: minutes(0), reason: http(500) },
      alerts: [{ kind: 'down', startedAt: minutes(0), reason: http(500) }],
    },
    {
      from: 'down',
      stored: failing,
      check: down(4, http(500)),
      to: 'down',
      context: { failingSince: minutes(0), reason: http(500) },
      alerts: [],
    },
    {
      from: 'down',
      stored: failing,
      check: up(7),
      to: 'up',
      context: cleared,
      alerts: [{ kind: 'up', startedAt: minutes(0), endedAt: minutes(7) }],
    },
  ];

  it.each(cases)(
    '$from, then $check.type → $to',
    ({ from, stored, check, to, context, alerts }) => {
      expect(stepMonitor(from, stored, check)).toEqual({
        state: to,
        context,
        alerts,
        retest: to === 'suspect',
      });
    },
  );

  it.each(cases)(
    'never changes its input: $from, then $check.type',
    ({ from, stored, check }) => {
      const context = structuredClone(stored);
      const event = structuredClone(check);
      const result = stepMonitor(from, context, event);
      expect(context).toEqual(stored);
      expect(event).toEqual(check);
      // A new object: the caller may change it without changing the input.
      expect(result.context).not.toBe(context);
    },
  );

  it('returns a context of its own, even when nothing changed', () => {
    const context: MonitorContext = { failingSince: null, reason: null };
    const result = stepMonitor('up', context, up(3));
    expect(result.context).toEqual(context);
    expect(result.context).not.toBe(context);
    // The shared start cannot be changed through any site.
    expect(Object.isFrozen(INITIAL_MONITOR_CONTEXT)).toBe(true);
  });
});

describe('stepMonitor: the retest flag (a third of the interval after one failure)', () => {
  it('is set only when the check leaves the site suspect', () => {
    expect(stepAll([]).state).toBe('pending');
    const flags = [
      [down(0)],
      [up(0)],
      [down(0), down(1)],
      [down(0), up(1)],
      [up(0), down(3)],
      [down(0), down(1), down(4)],
      [down(0), down(1), up(4)],
    ].map((events) => {
      const last = events.at(-1);
      const before = stepAll(events.slice(0, -1));
      if (!last) throw new Error('no check');
      return stepMonitor(before.state, before.context, last).retest;
    });
    expect(flags).toEqual([true, false, false, false, true, false, false]);
  });
});

describe('monitorMachine: tags and selectors', () => {
  const failing: MonitorContext = {
    failingSince: minutes(0),
    reason: TIMED_OUT,
  };
  const stored: [MonitorState, MonitorContext][] = [
    ['pending', INITIAL_MONITOR_CONTEXT],
    ['up', INITIAL_MONITOR_CONTEXT],
    ['suspect', failing],
    ['down', failing],
  ];

  it.each(stored)('%s', (state, context) => {
    const snapshot = restoreMonitor(state, context);
    expect(snapshot.value).toBe(state);
    expect({
      checked: selectChecked(snapshot),
      retest: selectRetest(snapshot),
      incident: selectIncident(snapshot),
    }).toEqual({
      checked: state !== 'pending',
      retest: state === 'suspect',
      incident:
        state === 'down' ? { startedAt: minutes(0), reason: TIMED_OUT } : null,
    });
  });

  it('names every state the database may hold, and no other', () => {
    expect([...MONITOR_STATES].sort()).toEqual(
      Object.keys(monitorMachine.root.states).sort(),
    );
    for (const state of ['pending', 'up', 'suspect', 'down']) {
      expect(isMonitorState(state), state).toBe(true);
    }
    for (const value of ['Up', 'degraded', '', null, undefined, 1]) {
      expect(isMonitorState(value), String(value)).toBe(false);
    }
  });
});

describe('stepMonitor: a stored shape the machine cannot be in is refused', () => {
  // Starting such a site over would lose an incident going on and mail a
  // second "down" for it; refused, the check's transaction rolls back.
  const refused =
    /stored monitor state .* is none the monitor machine can be in/;
  const failing: MonitorContext = {
    failingSince: minutes(0),
    reason: TIMED_OUT,
  };

  it.each([
    ['an unknown state', 'degraded', INITIAL_MONITOR_CONTEXT],
    ['a state in other words', 'Down', failing],
    ['a failure kept while pending', 'pending', failing],
    [
      'a failure start kept while up',
      'up',
      { failingSince: minutes(0), reason: null },
    ],
    ['a reason kept while up', 'up', { failingSince: null, reason: TIMED_OUT }],
    [
      'suspect without its start',
      'suspect',
      { ...failing, failingSince: null },
    ],
    ['down without its start', 'down', { ...failing, failingSince: null }],
    ['down without a reason', 'down', { ...failing, reason: null }],
    [
      'a reason kept as bare words',
      'down',
      { ...failing, reason: 'timed out' },
    ],
    ['a reason with no code', 'suspect', { ...failing, reason: {} }],
    ['a start that is no time', 'down', { ...failing, failingSince: NaN }],
    [
      'a start stored as text',
      'suspect',
      { ...failing, failingSince: '2025-03-01' },
    ],
  ])('%s', (_, state, context) => {
    expect(() =>
      stepMonitor(state as MonitorState, context as MonitorContext, up(10)),
    ).toThrow(refused);
    expect(() =>
      restoreMonitor(state as MonitorState, context as MonitorContext),
    ).toThrow(refused);
  });

  it('names the stored shape it refuses', () => {
    expect(() =>
      stepMonitor('degraded' as MonitorState, failing, up(10)),
    ).toThrow(
      `stored monitor state {"state":"degraded","context":{"failingSince":${minutes(0)},"reason":${JSON.stringify(TIMED_OUT)}}}`,
    );
  });

  it('keeps only the two fields it knows of a stored context', () => {
    const stored = { ...failing, checkedBy: 'worker 3' } as MonitorContext;
    expect(stepMonitor('suspect', stored, up(1)).context).toEqual(
      INITIAL_MONITOR_CONTEXT,
    );
    expect(stepMonitor('down', stored, down(4, http(502))).context).toEqual({
      failingSince: minutes(0),
      reason: http(502),
    });
  });

  it('an event it does not know changes nothing and queues nothing', () => {
    const stale = { type: 'check.timeout', at: minutes(4) };
    expect(
      stepMonitor('down', failing, stale as unknown as MonitorEvent),
    ).toEqual({ state: 'down', context: failing, alerts: [], retest: false });
  });

  it('an alert never goes without the incident start, even from a snapshot restored unchecked', () => {
    // What restoreMonitor refuses, built past it with xstate's own API.
    const unchecked = monitorMachine.resolveState({
      value: 'down',
      context: { failingSince: null, reason: null },
    });
    expect(() => selectIncident(unchecked)).toThrow(
      'no failed check: an incident starts at one',
    );
    const noReason = monitorMachine.resolveState({
      value: 'down',
      context: { failingSince: minutes(0), reason: null },
    });
    expect(() => selectIncident(noReason)).toThrow(
      'no failed check: no reason kept',
    );
    const actor = createActor(monitorMachine, {
      snapshot: unchecked,
    }).start();
    const errors: unknown[] = [];
    actor.subscribe({ error: (error) => errors.push(error) });
    actor.send(up(10));
    expect(String(errors[0])).toContain(
      'no failed check: an incident starts at one',
    );
  });
});
