/**
 * The transitions a machine defines, read from the machine object itself,
 * and a recorder of the transitions a running actor takes, read from its
 * inspection events (`@xstate.microstep` carries the transition
 * definitions it took). Together they make a coverage figure that cannot
 * lie: a transition added to a machine without a path that covers it fails
 * the suite.
 */
import {
  createActor,
  type AnyStateMachine,
  type AnyStateNode,
  type AnyTransitionDefinition,
  type EventObject,
  type InspectionEvent,
} from 'xstate';
import { getStateNodes } from 'xstate/graph';

function guardName(transition: AnyTransitionDefinition): string {
  const { guard } = transition;
  if (guard === undefined) return '';
  if (typeof guard === 'string') return ` [${guard}]`;
  if (typeof guard === 'object' && 'type' in guard) return ` [${guard.type}]`;
  return ' [inline guard]';
}

function eventLabel(transition: AnyTransitionDefinition): string {
  return transition.eventType === '' ? 'always' : transition.eventType;
}

/**
 * One line per transition: `source --event [guard]--> target(s)`, with
 * `(self)` for a targetless transition. Stable across `machine.provide`,
 * which rebuilds the state nodes.
 */
export function transitionKey(transition: AnyTransitionDefinition): string {
  const targets = transition.target?.length
    ? transition.target.map((node: AnyStateNode) => node.id).join(', ')
    : '(self)';
  return `${transition.source.id} --${eventLabel(transition)}${guardName(transition)}--> ${targets}`;
}

/** Every transition of every state node (events, invoke done/error, `always`). */
export function definedTransitions(machine: AnyStateMachine): string[] {
  const nodes = [machine.root, ...getStateNodes(machine.root)];
  const keys = nodes.flatMap((node) => [
    ...[...node.transitions.values()].flat(),
    ...(node.always ?? []),
  ]);
  return [...new Set(keys.map(transitionKey))].sort();
}

export interface TransitionRecord {
  /** Transition keys, in the order taken. */
  transitions: string[];
  /** Each event-driven transition with the event that took it. */
  taken: { key: string; event: EventObject }[];
  /** State node ids entered or active after each microstep. */
  states: Set<string>;
}

/**
 * An `inspect` callback for `createActor` (or the page's actors) that
 * records the transitions taken by actors of the machine with this id.
 */
export function recordTransitions(machineId: string) {
  const record: TransitionRecord = {
    transitions: [],
    taken: [],
    states: new Set(),
  };
  const inspect = (event: InspectionEvent) => {
    if (event.type !== '@xstate.microstep') return;
    const snapshot = event.snapshot as {
      machine?: AnyStateMachine;
      _nodes?: AnyStateNode[];
    };
    if (snapshot.machine?.id !== machineId) return;
    for (const transition of event._transitions) {
      const key = transitionKey(transition);
      record.transitions.push(key);
      // A transient state (left by `always` in the same macrostep) is never
      // the snapshot's; the transition leaving it shows it was reached.
      if (transition.source.parent) record.states.add(transition.source.id);
      if (transition.eventType !== '') {
        record.taken.push({ key, event: event.event });
      }
    }
    for (const node of snapshot._nodes ?? []) {
      if (node.parent) record.states.add(node.id);
    }
  };
  return { record, inspect };
}

/**
 * Replays `events` on a running actor of `replayLogic` (the machine with
 * actors that never settle: their outcomes are events of the path) and
 * records the transitions it takes.
 */
export function replayTransitions(
  replayLogic: AnyStateMachine,
  input: unknown,
  events: EventObject[],
): TransitionRecord {
  const { record, inspect } = recordTransitions(replayLogic.id);
  const actor = createActor(replayLogic, { input, inspect }).start();
  for (const event of events) actor.send(event);
  actor.stop();
  return record;
}

/** `covered X of Y transitions in N paths`, and what was not covered. */
export function coverage(defined: string[], covered: Iterable<string>) {
  const seen = new Set(covered);
  const missing = defined.filter((key) => !seen.has(key));
  return {
    covered: defined.length - missing.length,
    total: defined.length,
    missing,
  };
}

/**
 * Prints `<machine id>: covered X of Y transitions in N paths (<level>)`
 * and returns the transitions no path covered (a test expects none).
 */
export function reportCoverage(
  machine: AnyStateMachine,
  records: TransitionRecord[],
  paths: number,
  level: string,
): string[] {
  const result = coverage(
    definedTransitions(machine),
    records.flatMap((record) => record.transitions),
  );
  console.log(
    `${machine.id}Machine: covered ${result.covered} of ${result.total} transitions in ${paths} paths (${level})`,
  );
  return result.missing;
}
