/**
 * What the state atlas pictures, and along which model paths: computed from
 * the machines and their test models (harness/model), without a browser.
 *
 * Every state node of a machine gets at least one picture ("shot"). A shot
 * is taken where a planned path (harness/model/planner.ts) first reaches
 * the state, so the path of events beside it is one the model tests take.
 * Some states look different with different context, and get one shot per
 * look ({@link AtlasMachine.variant}: the failure's kind, whether errors
 * show).
 *
 * Momentary states (left by an eventless `always` transition in the same
 * step they are entered, e.g. `validating`, `starting`) never reach the
 * screen: their shot is the last frame drawn before they were entered,
 * marked `moment: 'before'`, with the states they lead to. `starting` is
 * entered when the page's script starts the machine, so its frame is the
 * prerendered page before any script ran (`moment: 'prerender'`).
 */
import {
  createActor,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyStateNode,
  type EventObject,
  type InspectionEvent,
} from 'xstate';
import {
  walkPath,
  type ModelSpec,
  type PlannedPath,
} from '../../harness/model/planner';
import { eventLabel, stateNodesOf } from '../docs/mermaid';

/** One machine of the atlas, with the model whose paths reach its states. */
export interface AtlasMachine<TInput> {
  /** The diagram's name (scripts/docs/diagramFiles.ts `DIAGRAMS`). */
  name: string;
  model: ModelSpec<TInput>;
  /** The planned paths of `model` (harness/model/planner.ts `planPaths`). */
  paths: PlannedPath<TInput>[];
  /** e.g. `stored unset, utm_source=google`; empty for a single input. */
  describeInput: (input: TInput) => string;
  /**
   * Snapshots of one state that look different to the visitor, e.g. the
   * failure's kind; undefined when the state has one look.
   */
  variant: (snapshot: AnyMachineSnapshot) => string | undefined;
}

/** When the picture is taken, relative to the state it stands for. */
export type Moment =
  /** While the page shows the state. */
  | 'during'
  /** Momentary state: just before the event that passes through it. */
  | 'before'
  /** Momentary first state: the prerendered page, before any script ran. */
  | 'prerender';

/** One picture of the atlas (taken at each width). */
export interface Shot<TInput> {
  /** Unique and stable: the file names' stem and the HTML anchor. */
  id: string;
  /** The state node pictured (its XState id, e.g. `consent.unset.open`). */
  stateId: string;
  variant: string | undefined;
  moment: Moment;
  /** Every state node this picture shows: the state and its ancestors. */
  nodes: string[];
  tags: string[];
  /** The events the state handles (readable labels, e.g. `done: submitSignUp`). */
  accepts: string[];
  /** Momentary states: the states the eventless transitions lead to. */
  leadsTo: string[];
  input: TInput;
  /** The path's events up to and including the one that entered the state. */
  reachedBy: EventObject[];
  /** How many of the path's events are played before the picture is taken. */
  playedBefore: number;
  /** Which of {@link AtlasMachine.paths} it is taken on. */
  pathIndex: number;
}

/** A browser run: one planned path, played once, pictured at some steps. */
export interface Run<TInput> {
  pathIndex: number;
  input: TInput;
  events: EventObject[];
  shots: Shot<TInput>[];
}

function ancestry(node: AnyStateNode): AnyStateNode[] {
  const nodes: AnyStateNode[] = [];
  for (let n: AnyStateNode | undefined = node; n?.parent; n = n.parent) {
    nodes.unshift(n);
  }
  return nodes;
}

/** The state nodes a snapshot is in (ancestors included), document order. */
export function activeNodes(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
): AnyStateNode[] {
  return stateNodesOf(machine).filter((node) =>
    snapshot.matches(node.path.join('.')),
  );
}

/** Events a state node and its ancestors handle, as readable labels. */
export function acceptedEvents(nodes: AnyStateNode[]): string[] {
  const labels = nodes.flatMap((node) => node.ownEvents.map(eventLabel));
  return [...new Set(labels)];
}

interface Step {
  snapshot: AnyMachineSnapshot;
  /** States passed through (left by `always`) in this step. */
  momentary: AnyStateNode[];
}

/**
 * The machine's snapshot after starting and after each event of the path,
 * with the momentary states each step passed through (read from the
 * actor's inspection events, as harness/model/transitions.ts does).
 */
function stepsOf<TInput>(
  model: ModelSpec<TInput>,
  path: PlannedPath<TInput>,
): Step[] {
  let passed: AnyStateNode[] = [];
  const inspect = (event: InspectionEvent) => {
    if (event.type !== '@xstate.microstep') return;
    for (const transition of event._transitions) {
      if (transition.eventType === '' && transition.source.parent) {
        passed.push(transition.source);
      }
    }
  };
  const actor = createActor(model.replayLogic, {
    input: path.input,
    inspect,
  }).start();
  const take = (): Step => {
    const snapshot = actor.getSnapshot() as AnyMachineSnapshot;
    const step = { snapshot, momentary: passed };
    passed = [];
    return step;
  };
  const steps = [take()];
  // Each case as the machine hears it (a chunk's arrival is the verdict
  // it makes, harness/model/planner.ts).
  for (const sent of walkPath(model, path.input, path.events).sent) {
    for (const event of sent) actor.send(event);
    steps.push(take());
  }
  actor.stop();
  return steps;
}

interface Occurrence<TInput> {
  key: string;
  pathIndex: number;
  /** Steps are 0 (started) … n (after the n-th event). */
  step: number;
  build: () => Omit<Shot<TInput>, 'id' | 'pathIndex'>;
}

function occurrencesOf<TInput>(
  atlas: AtlasMachine<TInput>,
  pathIndex: number,
): Occurrence<TInput>[] {
  const path = atlas.paths[pathIndex];
  if (!path) return [];
  const { machine } = atlas.model;
  const occurrences: Occurrence<TInput>[] = [];
  stepsOf(atlas.model, path).forEach(({ snapshot, momentary }, step) => {
    const reachedBy = path.events.slice(0, step);
    for (const node of momentary) {
      const state = machine.getStateNodeById(node.id);
      occurrences.push({
        key: JSON.stringify([node.id]),
        pathIndex,
        step,
        build: () => ({
          stateId: node.id,
          variant: undefined,
          moment: step === 0 ? 'prerender' : 'before',
          nodes: ancestry(state).map((n) => n.id),
          tags: [...state.tags].sort(),
          accepts: acceptedEvents(ancestry(state)),
          leadsTo: [
            ...new Set(
              (state.always ?? []).flatMap((t) =>
                (t.target ?? []).map((target: AnyStateNode) => target.id),
              ),
            ),
          ],
          input: path.input,
          reachedBy,
          playedBefore: Math.max(0, step - 1),
        }),
      });
    }
    const active = activeNodes(machine, snapshot);
    const leaves = active.filter(
      (node) => !active.some((other) => other.parent === node),
    );
    const variant = atlas.variant(snapshot);
    for (const leaf of leaves) {
      occurrences.push({
        key: JSON.stringify([leaf.id, variant ?? null]),
        pathIndex,
        step,
        build: () => ({
          stateId: leaf.id,
          variant,
          moment: 'during',
          nodes: ancestry(leaf).map((n) => n.id),
          tags: [...snapshot.tags].sort(),
          accepts: acceptedEvents(ancestry(leaf)),
          leadsTo: [],
          input: path.input,
          reachedBy,
          playedBefore: step,
        }),
      });
    }
  });
  return occurrences;
}

/** `signUp.failure` + `rateLimited` → `signUp.failure--rateLimited`. */
function shotId(stateId: string, variant: string | undefined): string {
  const slug = (text: string) => text.replace(/[^A-Za-z0-9.]+/g, '-');
  return variant ? `${slug(stateId)}--${slug(variant)}` : slug(stateId);
}

/**
 * The runs that picture every state (and variant) the paths reach: few
 * paths (greedy set cover over the planned paths, which come shortest
 * first), each state taken where its chosen path first reaches it. Shots
 * come in the machine's document order, variants in the order first met.
 */
export function planRuns<TInput>(atlas: AtlasMachine<TInput>): Run<TInput>[] {
  const all = atlas.paths.flatMap((_, index) => occurrencesOf(atlas, index));
  const uncovered = new Set(all.map((o) => o.key));
  const chosen: number[] = [];
  while (uncovered.size > 0) {
    let best = -1;
    let bestGain = 0;
    atlas.paths.forEach((_, index) => {
      const gain = new Set(
        all
          .filter((o) => o.pathIndex === index && uncovered.has(o.key))
          .map((o) => o.key),
      ).size;
      if (gain > bestGain) {
        best = index;
        bestGain = gain;
      }
    });
    if (best < 0) break;
    chosen.push(best);
    for (const o of all) if (o.pathIndex === best) uncovered.delete(o.key);
  }
  const taken = new Map<string, Shot<TInput>>();
  for (const pathIndex of chosen) {
    for (const o of all) {
      if (o.pathIndex !== pathIndex || taken.has(o.key)) continue;
      const shot = o.build();
      taken.set(o.key, {
        ...shot,
        id: shotId(shot.stateId, shot.variant),
        pathIndex,
      });
    }
  }
  const order = stateNodesOf(atlas.model.machine).map((node) => node.id);
  const shots = [...taken.values()].sort(
    (a, b) => order.indexOf(a.stateId) - order.indexOf(b.stateId),
  );
  return chosen
    .map((pathIndex) => {
      const path = atlas.paths[pathIndex];
      if (!path) throw new Error(`no planned path ${pathIndex}`);
      const own = shots.filter((shot) => shot.pathIndex === pathIndex);
      const played = Math.max(...own.map((shot) => shot.playedBefore));
      return {
        pathIndex,
        input: path.input,
        events: path.events.slice(0, played),
        shots: own,
      };
    })
    .sort((a, b) => a.pathIndex - b.pathIndex);
}

/** Every shot of the runs, in the machine's document order. */
export function shotsOf<TInput>(
  atlas: AtlasMachine<TInput>,
  runs: Run<TInput>[],
): Shot<TInput>[] {
  const order = stateNodesOf(atlas.model.machine).map((node) => node.id);
  return runs
    .flatMap((run) => run.shots)
    .sort(
      (a, b) =>
        order.indexOf(a.stateId) - order.indexOf(b.stateId) ||
        a.pathIndex - b.pathIndex,
    );
}

/**
 * How a shot's state was reached, in the model's words: where the visit
 * started (e.g. `stored unset, utm_source=google`; empty for a machine
 * with one start) and the events' case names (e.g. `name: Ada Lovelace`).
 */
export function reachOf<TInput>(
  atlas: AtlasMachine<TInput>,
  shot: Shot<TInput>,
): { from: string; events: string[] } {
  return {
    from: atlas.describeInput(shot.input),
    events: shot.reachedBy.map((event) => atlas.model.caseName(event)),
  };
}
