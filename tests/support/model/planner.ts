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
import { replayTransitions } from './transitions';

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
  abstract: (snapshot: AnyMachineSnapshot) => string;
  /** A short, stable name for an event case. */
  caseName: (event: EventObject) => string;
  /**
   * Looks of states that some path must reach besides every transition
   * (e.g. a rejection the browser's signal made, not the visitor): the
   * look of a snapshot, or undefined for none. Absent: transitions only.
   */
  look?: (snapshot: AnyMachineSnapshot) => string | undefined;
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
  const record = replayTransitions(spec.replayLogic, input, events);
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
  const logic: AnyActorLogic = spec.machine;
  let snapshot = getInitialSnapshot(logic, input) as AnyMachineSnapshot;
  const snapshots = [snapshot];
  for (const event of events) {
    snapshot = getNextSnapshot(logic, snapshot, event) as AnyMachineSnapshot;
    snapshots.push(snapshot);
  }
  return snapshots.flatMap((reached) => {
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
    const options: TraversalOptions<AnyMachineSnapshot, EventObject, TInput> = {
      input,
      events: (snapshot) => spec.cases.filter((event) => snapshot.can(event)),
      serializeState: (snapshot) => spec.abstract(snapshot),
      serializeEvent: (event) => spec.caseName(event),
    };
    // xstate/graph's types do not accept a machine with `emitted` events
    // (its ActorScope type is not generic over them); the logic is the same.
    const logic = spec.machine as unknown as ActorLogic<
      AnyMachineSnapshot,
      EventObject,
      TInput
    >;
    const adjacency = getAdjacencyMap(logic, options);
    const shortest = new Map(
      getShortestPaths(logic, options).map((path) => [
        spec.abstract(path.state),
        // The first step is the actor's own `xstate.init`, not an event to send.
        path.steps
          .map((step) => step.event)
          .filter((event) => event.type !== 'xstate.init'),
      ]),
    );
    candidates.push({ input, events: [], covers: [] });
    for (const { state, event } of adjacencyMapToArray(adjacency)) {
      const prefix = shortest.get(spec.abstract(state));
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
