/**
 * A path's name: its events and the state the machine definition itself
 * computes at its end (xstate's pure `getNextSnapshot`, which runs no
 * effect, with the model's world: ./planner.ts). The name only labels the
 * test; what each step must show comes from the hand-written reference
 * (./reference.ts).
 */
import type { EventObject, StateValue } from 'xstate';
import { walkPath, type ModelSpec, type PlannedPath } from './planner';

/** `from <input>: e1 → e2 → … ⇒ final state` */
export function describePath<TInput>(
  spec: ModelSpec<TInput>,
  path: PlannedPath<TInput>,
  describeInput: (input: TInput) => string = () => '',
): string {
  const final = walkPath(spec, path.input, path.events).states.at(-1);
  const start = describeInput(path.input);
  const events = path.events.map((event: EventObject) => spec.caseName(event));
  const end = final ? stateLabel(final.snapshot.value) : '?';
  return `${start ? `${start}: ` : ''}${events.join(' → ') || '(start)'} ⇒ ${end}`;
}

/** `idle`, `accepted.open`: a state value as a dotted path. */
export function stateLabel(value: StateValue): string {
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .map(([key, child]) => (child ? `${key}.${stateLabel(child)}` : key))
    .join(', ');
}
