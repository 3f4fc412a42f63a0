/**
 * A path's name: its events and the state the machine definition itself
 * computes at its end (xstate's pure `getNextSnapshot`, which runs no
 * effect). The name only labels the test; what each step must show comes
 * from the hand-written reference (./reference.ts).
 */
import {
  getInitialSnapshot,
  getNextSnapshot,
  type AnyActorLogic,
  type AnyMachineSnapshot,
  type EventObject,
  type StateValue,
} from 'xstate';
import type { ModelSpec, PlannedPath } from './planner';

/** @returns the model's snapshot after each event of the path */
function modelSnapshots<TInput>(
  spec: ModelSpec<TInput>,
  path: PlannedPath<TInput>,
): { initial: AnyMachineSnapshot; after: AnyMachineSnapshot[] } {
  const logic: AnyActorLogic = spec.machine;
  const initial = getInitialSnapshot(logic, path.input) as AnyMachineSnapshot;
  const after: AnyMachineSnapshot[] = [];
  let snapshot = initial;
  for (const event of path.events) {
    snapshot = getNextSnapshot(logic, snapshot, event) as AnyMachineSnapshot;
    after.push(snapshot);
  }
  return { initial, after };
}

/** `from <input>: e1 → e2 → … ⇒ final state` */
export function describePath<TInput>(
  spec: ModelSpec<TInput>,
  path: PlannedPath<TInput>,
  describeInput: (input: TInput) => string = () => '',
): string {
  const { initial, after } = modelSnapshots(spec, path);
  const final = after.at(-1) ?? initial;
  const start = describeInput(path.input);
  const events = path.events.map((event: EventObject) => spec.caseName(event));
  return `${start ? `${start}: ` : ''}${events.join(' → ') || '(start)'} ⇒ ${stateLabel(final.value)}`;
}

/** `idle`, `accepted.open`: a state value as a dotted path. */
export function stateLabel(value: StateValue): string {
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .map(([key, child]) => (child ? `${key}.${stateLabel(child)}` : key))
    .join(', ');
}
