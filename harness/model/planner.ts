/**
 * Plans model-based test paths from a real machine with xstate/graph's path
 * generators. `createTestModel` refuses machines that `invoke`, so the
 * traversal runs on the machine itself, with the invoked actor's done and
 * error events supplied as event cases (the traversal never runs actors:
 * its actor scope executes no action).
 *
 * Each path is the shortest path to a state plus one more event; the
 * planner keeps a small set of them (greedy set cover) that together cover
 * every (transition, event case) pair the traversal can reach, and reach
 * every look of a state the model names ({@link ModelSpec.look}). Covered
 * transitions are measured by replaying the events on a running actor and
 * reading its inspection events, never inferred from the graph.
 */
import {
  getInitialSnapshot,
  getNextSnapshot,
  type ActorLogic,
  type AnyActorLogic,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventObject,
} from 'xstate';
import {
  adjacencyMapToArray,
  getAdjacencyMap,
  getShortestPaths,
  type TraversalOptions,
} from 'xstate/graph';
import { replayTransitions, type TransitionRecord } from './transitions';

export interface ModelSpec<TInput> {
  /** The machine the page runs. */
  machine: AnyStateMachine;
  /**
   * The same machine provided with actors that never settle and no effects,
   * for replaying paths: their done/error events are sent as event cases.
   */
  replayLogic: AnyStateMachine;
  /** Each initial input to start from (e.g. stored choice × utm_source). */
  inputs: TInput[];
  /** The event cases: every branch of the requirements the paths must take. */
  cases: EventObject[];
  /**
   * Which snapshots count as the same state for the traversal: a coarse key
   * keeps the graph small, the replay keeps the real context.
   */
  abstract: (snapshot: AnyMachineSnapshot, world: unknown) => string;
  /** A short, stable name for an event case. */
  caseName: (event: EventObject) => string;
  /**
   * The world around the machine that some cases drive instead of the
   * machine itself (the page's chunks arriving or not: ADR-0058, ADR-0071).
   * Absent: every case is an event the machine is sent.
   */
  world?: ModelWorld<unknown>;
  /**
   * Looks of states that some path must reach besides every transition
   * (e.g. a rejection the browser's signal made, not the visitor): the
   * look of a snapshot, or undefined for none. Absent: transitions only.
   */
  look?: (snapshot: AnyMachineSnapshot) => string | undefined;
}

/**
 * What the machine does not hold but a path drives: its state beside the
 * machine's, the cases it offers, and what a case does.
 */
export interface ModelWorld<TWorld> {
  /** The world at a path's start. */
  start: TWorld;
  /** The cases it offers in a state, beside the spec's. */
  cases: (snapshot: AnyMachineSnapshot, world: TWorld) => EventObject[];
  /**
   * What a case does to the machine's `snapshot`: the world's next state.
   * `send` sends the machine an event (a visitor's case is sent as it is)
   * and returns its next snapshot.
   */
  step: (
    event: EventObject,
    world: TWorld,
    snapshot: AnyMachineSnapshot,
    send: (event: EventObject) => AnyMachineSnapshot,
  ) => TWorld;
}

/**
 * A snapshot of the machine, and the world beside it: an active snapshot
 * of its own, for xstate/graph's traversal.
 */
export interface ModelState {
  status: 'active';
  output: undefined;
  error: undefined;
  snapshot: AnyMachineSnapshot;
  world: unknown;
}

const modelState = (snapshot: AnyMachineSnapshot, world: unknown) =>
  ({
    status: 'active',
    output: undefined,
    error: undefined,
    snapshot,
    world,
  }) satisfies ModelState;

/** Without a world, a case is sent to the machine as it is. */
const NO_WORLD: ModelWorld<unknown> = {
  start: undefined,
  cases: () => [],
  step: (event, world, _, send) => {
    send(event);
    return world;
  },
};

/**
 * One step of a path on the machine itself (xstate's pure transition,
 * which runs no effect).
 *
 * @returns the state after the case, and the events the machine was sent
 */
export function stepModel<TInput>(
  spec: ModelSpec<TInput>,
  from: ModelState,
  event: EventObject,
): ModelState & { sent: EventObject[] } {
  const logic: AnyActorLogic = spec.machine;
  let { snapshot } = from;
  const sent: EventObject[] = [];
  const world = (spec.world ?? NO_WORLD).step(
    event,
    from.world,
    snapshot,
    (e) => {
      sent.push(e);
      snapshot = getNextSnapshot(logic, snapshot, e) as AnyMachineSnapshot;
      return snapshot;
    },
  );
  return { ...modelState(snapshot, world), sent };
}

/** The state at a path's start. */
export function startModel<TInput>(
  spec: ModelSpec<TInput>,
  input: TInput,
): ModelState {
  const logic: AnyActorLogic = spec.machine;
  return modelState(
    getInitialSnapshot(logic, input) as AnyMachineSnapshot,
    (spec.world ?? NO_WORLD).start,
  );
}

/**
 * A path played on the machine itself.
 *
 * @returns the state at its start and after each case, and the events
 *   each case sent the machine
 */
export function walkPath<TInput>(
  spec: ModelSpec<TInput>,
  input: TInput,
  events: readonly EventObject[],
): { states: ModelState[]; sent: EventObject[][] } {
  let state = startModel(spec, input);
  const states = [state];
  const sent: EventObject[][] = [];
  for (const event of events) {
    const next = stepModel(spec, state, event);
    sent.push(next.sent);
    state = next;
    states.push(state);
  }
  return { states, sent };
}

/**
 * The transitions a path takes on a running actor of the machine (its
 * `replayLogic`), each case sent as the machine hears it.
 */
export function replayPath<TInput>(
  spec: ModelSpec<TInput>,
  input: TInput,
  events: readonly EventObject[],
): TransitionRecord {
  const sent = walkPath(spec, input, events).sent.flat();
  return replayTransitions(spec.replayLogic, input, sent);
}

export interface PlannedPath<TInput> {
  input: TInput;
  events: EventObject[];
  /** The (transition, event case) pairs and transitions this path covers. */
  covers: string[];
}

/**
 * Items a replay covers: each transition, each with its event case, and
 * each look ({@link ModelSpec.look}) of a state it reaches, as
 * `look: <state value> ⟨<look>⟩`.
 */
export function replayCoverage<TInput>(
  spec: ModelSpec<TInput>,
  input: TInput,
  events: EventObject[],
): string[] {
  const record = replayPath(spec, input, events);
  return [
    ...record.transitions,
    ...record.taken.map(({ key, event }) => `${key} ⟨${spec.caseName(event)}⟩`),
    ...looksReached(spec, input, events),
  ];
}

/** The looks of the snapshots a path passes, as coverage items. */
function looksReached<TInput>(
  spec: ModelSpec<TInput>,
  input: TInput,
  events: EventObject[],
): string[] {
  const { look } = spec;
  if (!look) return [];
  const { states } = walkPath(spec, input, events);
  return states.flatMap(({ snapshot: reached }) => {
    const name = look(reached);
    return name === undefined
      ? []
      : [`look: ${JSON.stringify(reached.value)} ⟨${name}⟩`];
  });
}

/**
 * The plans made in this process, by spec: planning is deterministic and
 * costs seconds (the sign-up model's, about 15 s on two busy cores), and the
 * unit files that share a worker (`isolate: false`) plan the same specs.
 */
const plans = new WeakMap<object, unknown>();

/**
 * @returns paths that together cover everything reachable with the cases,
 *   each with its input and events, shortest first within equal coverage
 *   (planned once per spec and process: a new array of the same paths)
 */
export function planPaths<TInput>(
  spec: ModelSpec<TInput>,
): PlannedPath<TInput>[] {
  let plan = plans.get(spec) as PlannedPath<TInput>[] | undefined;
  if (!plan) {
    plan = makePlan(spec);
    plans.set(spec, plan);
  }
  return [...plan];
}

function makePlan<TInput>(spec: ModelSpec<TInput>): PlannedPath<TInput>[] {
  const candidates: PlannedPath<TInput>[] = [];
  for (const input of spec.inputs) {
    const world = spec.world ?? NO_WORLD;
    const options: TraversalOptions<ModelState, EventObject, TInput> = {
      input,
      events: ({ snapshot, world: around }) => [
        ...spec.cases.filter((event) => snapshot.can(event)),
        ...world.cases(snapshot, around),
      ],
      serializeState: (state) => spec.abstract(state.snapshot, state.world),
      serializeEvent: (event) => spec.caseName(event),
    };
    // The machine and its world, stepped by xstate's pure transition.
    const logic: ActorLogic<ModelState, EventObject, TInput> = {
      transition: (state, event) => stepModel(spec, state, event),
      getInitialSnapshot: (_, start) => startModel(spec, start),
      getPersistedSnapshot: (state) => state,
    };
    const adjacency = getAdjacencyMap(logic, options);
    const shortest = new Map(
      getShortestPaths(logic, options).map((path) => [
        spec.abstract(path.state.snapshot, path.state.world),
        // The first step is the actor's own `xstate.init`, not an event to send.
        path.steps
          .map((step) => step.event)
          .filter((event) => event.type !== 'xstate.init'),
      ]),
    );
    candidates.push({ input, events: [], covers: [] });
    for (const { state, event } of adjacencyMapToArray(adjacency)) {
      const prefix = shortest.get(spec.abstract(state.snapshot, state.world));
      if (prefix) {
        candidates.push({ input, events: [...prefix, event], covers: [] });
      }
    }
  }
  for (const candidate of candidates) {
    candidate.covers = replayCoverage(spec, candidate.input, candidate.events);
  }
  return greedyCover(candidates);
}

function greedyCover<TInput>(
  candidates: PlannedPath<TInput>[],
): PlannedPath<TInput>[] {
  const uncovered = new Set(candidates.flatMap((c) => c.covers));
  const chosen: PlannedPath<TInput>[] = [];
  while (uncovered.size > 0) {
    let best: PlannedPath<TInput> | undefined;
    let bestGain = 0;
    for (const candidate of candidates) {
      const gain = new Set(candidate.covers.filter((i) => uncovered.has(i)))
        .size;
      if (
        gain > bestGain ||
        (gain === bestGain &&
          best !== undefined &&
          candidate.events.length < best.events.length)
      ) {
        best = candidate;
        bestGain = gain;
      }
    }
    if (!best || bestGain === 0) break;
    chosen.push(best);
    for (const item of best.covers) uncovered.delete(item);
  }
  return chosen.sort((a, b) => a.events.length - b.events.length);
}
