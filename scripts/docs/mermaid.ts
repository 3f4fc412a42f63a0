/**
 * Mermaid `stateDiagram-v2` text drawn from an XState machine object (not
 * from its source), so the diagrams cannot drift from the machines.
 *
 * - Every state node is declared as `state "key «tag»" as id`, where the id is
 *   the node's id with every character Mermaid would not take replaced by `_`
 *   (`consent.unset.open` → `consent_unset_open`).
 * - Compound states are composite states with their own `[*] -->` arrow;
 *   final states get `--> [*]`.
 * - A transition is labelled with its event (`submit`), its guard
 *   (`submit [isValid]`), or `[else]` when it is the fallback after guarded
 *   ones for the same event; eventless ones say `always`; an invoked actor's
 *   outcome says `done: id` / `error: id`.
 * - With `effects`, a transition's label also names its actions, one
 *   `/ action(params)` line each, and a state's label its entry actions
 *   (`entry / removeTag, deleteTagCookies`).
 * - Targetless transitions (the state handles the event without leaving
 *   it) are listed inside the state's box, one `· event` per line, as
 *   Stately's visualizer does; edges with the same two ends are merged.
 * - An edge is declared in the innermost composite that holds both its ends,
 *   so Mermaid never moves a state into the wrong composite.
 *
 * Output order follows the machine's own (document) order: stable.
 */
import type {
  AnyStateMachine,
  AnyStateNode,
  AnyTransitionDefinition,
} from 'xstate';

type Guard = NonNullable<AnyTransitionDefinition['guard']>;

interface Edge {
  /** `undefined`: targetless (handled without leaving `source`). */
  target: AnyStateNode | undefined;
  label: string;
}

const INDENT = '  ';

/** Line break inside a Mermaid label (both GitHub's and the SVG renderer). */
export const LABEL_BREAK = '<br/>';

/** A state node's Mermaid id: its XState id with `.` (and any other
 * character Mermaid ids do not allow) replaced by `_`. The root stands for
 * "any state" (its own transitions apply in every state): `<id>_any`. */
export function mermaidId(node: AnyStateNode): string {
  const id = node.id.replace(/[^A-Za-z0-9_]/g, '_');
  return node.parent ? id : `${id}_any`;
}

/** A readable label for an XState event type (`xstate.done.actor.x` →
 * `done: x`, `xstate.error.actor.x` → `error: x`); others unchanged. */
export function eventLabel(eventType: string): string {
  const actor = /^xstate\.(done|error)\.actor\.(.+)$/.exec(eventType);
  return actor ? `${actor[1]}: ${actor[2]}` : eventType;
}

/** The name a guard is shown by: its type, or a predicate's function name
 * (`inline` when it has none). The machines use named guards only; a
 * combinator (`and`, `not`…) would show by its function's name. */
export function guardLabel(guard: Guard): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard !== 'function') return guard.type;
  return guard.name && guard.name !== 'guard' ? guard.name : 'inline';
}

/** How much a diagram shows. */
export interface MermaidOptions {
  /** Name the actions of transitions and the entry actions of states. */
  effects?: boolean;
}

/** An action's name: its type, with a string or number parameter. */
function actionLabel(action: unknown): string | undefined {
  if (typeof action === 'string') return action;
  if (typeof action === 'function') {
    return action.name && action.name !== 'action' ? action.name : undefined;
  }
  if (typeof action !== 'object' || action === null) return undefined;
  const { type, params } = action as { type?: unknown; params?: unknown };
  if (typeof type !== 'string') return undefined;
  return typeof params === 'string' || typeof params === 'number'
    ? `${type}(${params})`
    : type;
}

/** ` / a, b` for the named actions; '' when there are none. */
function actionsSuffix(actions: readonly unknown[]): string {
  const names = actions
    .map(actionLabel)
    .filter((name): name is string => name !== undefined);
  return names.length > 0 ? ` / ${names.join(', ')}` : '';
}

/** The state's label: its key, its tags as «tag», then (with `effects`) its
 * entry actions, then one line per event it handles without leaving
 * (targetless transitions), as Stately's visualizer lists them inside the
 * state. */
function stateLabel(node: AnyStateNode, options: MermaidOptions): string {
  const marks = [...node.tags].sort().map((tag) => `«${tag}»`);
  const entry = options.effects ? actionsSuffix(node.entry) : '';
  const handled = edgesFrom(node, options)
    .filter((edge) => !edge.target)
    .map((edge) => `· ${edge.label}`);
  const name = node.parent ? node.key : '(any state)';
  return [
    [name, ...marks].join(' '),
    ...(entry ? [`entry${entry}`] : []),
    ...handled,
  ]
    .join(LABEL_BREAK)
    .replace(/"/g, "'");
}

function children(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states);
}

function isComposite(node: AnyStateNode): boolean {
  return children(node).length > 0;
}

/** The node and its descendants, in document order. */
function descendants(node: AnyStateNode): AnyStateNode[] {
  return [node, ...children(node).flatMap(descendants)];
}

/** Labels for one event's candidate transitions, in priority order. */
function candidateLabels(
  name: string,
  candidates: readonly AnyTransitionDefinition[],
  options: MermaidOptions,
): string[] {
  let guardedBefore = false;
  return candidates.map((transition) => {
    const { guard } = transition;
    const label = guard
      ? `${name} [${guardLabel(guard)}]`
      : guardedBefore
        ? `${name} [else]`
        : name;
    guardedBefore ||= Boolean(guard);
    // Its actions on lines of their own keep the label narrow.
    const actions = options.effects
      ? transition.actions.map(actionLabel).filter(Boolean)
      : [];
    return [label, ...actions.map((action) => `/ ${action}`)].join(LABEL_BREAK);
  });
}

/** Every transition leaving `node`, in the machine's order. */
function edgesFrom(node: AnyStateNode, options: MermaidOptions): Edge[] {
  const groups = [...node.transitions].map(
    ([type, candidates]) => [eventLabel(type), candidates] as const,
  );
  if (node.always) groups.push(['always', node.always] as const);
  return groups.flatMap(([name, candidates]) => {
    const labels = candidateLabels(name, candidates, options);
    return candidates.flatMap((transition, i): Edge[] => {
      const label = labels[i] ?? name;
      const targets = transition.target ?? [];
      if (targets.length === 0) return [{ target: undefined, label }];
      return targets.map((target) => ({ target, label }));
    });
  });
}

/** The innermost composite (possibly the root) that strictly contains
 * both nodes: where Mermaid wants the edge between them declared. */
function edgeScope(a: AnyStateNode, b: AnyStateNode): AnyStateNode {
  const ancestorsOfB = new Set<AnyStateNode>();
  for (let n = b.parent; n; n = n.parent) ancestorsOfB.add(n);
  for (let n = a.parent; n; n = n.parent) {
    if (ancestorsOfB.has(n)) return n;
  }
  return a.machine.root;
}

/** Edge lines per scope. Edges with the same two ends are merged into one,
 * their labels one per line; targetless transitions are left to the
 * state's label. */
function edgeLinesByScope(
  root: AnyStateNode,
  options: MermaidOptions,
): Map<AnyStateNode, string[]> {
  const merged = new Map<string, { scope: AnyStateNode; labels: string[] }>();
  for (const node of descendants(root)) {
    for (const { target, label } of edgesFrom(node, options)) {
      if (!target) continue;
      const key = `${mermaidId(node)} --> ${mermaidId(target)}`;
      const entry = merged.get(key);
      if (entry) entry.labels.push(label);
      else merged.set(key, { scope: edgeScope(node, target), labels: [label] });
    }
  }
  const byScope = new Map<AnyStateNode, string[]>();
  for (const [key, { scope, labels }] of merged) {
    const line = `${key} : ${labels.join(LABEL_BREAK)}`;
    byScope.set(scope, [...(byScope.get(scope) ?? []), line]);
  }
  return byScope;
}

/** The lines inside one composite (or the root), already indented. */
function blockLines(
  scope: AnyStateNode,
  edges: Map<AnyStateNode, string[]>,
  depth: number,
  options: MermaidOptions,
): string[] {
  const pad = INDENT.repeat(depth);
  const lines: string[] = [];
  for (const child of children(scope)) {
    const declaration = `state "${stateLabel(child, options)}" as ${mermaidId(child)}`;
    if (isComposite(child)) {
      lines.push(`${pad}${declaration} {`);
      lines.push(...blockLines(child, edges, depth + 1, options));
      lines.push(`${pad}}`);
    } else {
      lines.push(`${pad}${declaration}`);
    }
  }
  for (const target of scope.initial?.target ?? []) {
    lines.push(`${pad}[*] --> ${mermaidId(target)}`);
  }
  lines.push(...(edges.get(scope) ?? []).map((line) => `${pad}${line}`));
  for (const child of children(scope)) {
    if (child.type === 'final') lines.push(`${pad}${mermaidId(child)} --> [*]`);
  }
  return lines;
}

/**
 * The Mermaid `stateDiagram-v2` text of a machine, drawn from its state
 * nodes (see the module comment for the conventions). Deterministic.
 *
 * @param options `effects`: name actions too (default: events and guards)
 */
export function toMermaid(
  machine: AnyStateMachine,
  options: MermaidOptions = {},
): string {
  const root = machine.root;
  const ids = descendants(root).map(mermaidId);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) {
    throw new Error(
      `two states of ${root.id} share the Mermaid id ${duplicate}`,
    );
  }
  const edges = edgeLinesByScope(root, options);
  const lines = blockLines(root, edges, 1, options);
  if (edgesFrom(root, options).length > 0) {
    // Transitions of the root itself apply in every state.
    lines.unshift(
      `${INDENT}state "${stateLabel(root, options)}" as ${mermaidId(root)}`,
    );
  }
  return ['stateDiagram-v2', ...lines].join('\n') + '\n';
}

/** Every state node of a machine below its root, in document order. */
export function stateNodesOf(machine: AnyStateMachine): AnyStateNode[] {
  return descendants(machine.root).slice(1);
}
