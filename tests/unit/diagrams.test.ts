import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMachine, fromPromise, setup, type AnyStateNode } from 'xstate';
import {
  DIAGRAMS,
  diagramFiles,
  renderSvg,
} from '../../scripts/docs/diagramFiles';
import { toMermaid } from '../../scripts/docs/mermaid';
import { PROJECT_ROOT } from '../../harness/page/paths';

const STALE = 'stale: run npm run diagrams';

function committed(path: string): string {
  const file = resolve(PROJECT_ROOT, path);
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

// Regenerated exactly as `npm run diagrams` does.
const fresh = diagramFiles(committed('README.md'));

describe('the committed machine diagrams', () => {
  it.each(fresh.filter(({ path }) => path.endsWith('.mmd')))(
    '$path matches the machine',
    ({ path, content }) => {
      expect(committed(path), `${path} is ${STALE}`).toBe(content);
    },
  );

  // Compared as a boolean: a diff of the whole README helps nobody.
  it.each(fresh.filter(({ path }) => !path.endsWith('.mmd')))(
    '$path matches the machine',
    ({ path, content }) => {
      expect(committed(path) === content, `${path} is ${STALE}`).toBe(true);
    },
  );
});

/** A state of the drawing: its path of keys, and its edges out. */
interface DrawnState {
  path: string;
  edges: { target: string; label: string }[];
}

/**
 * Reads a `stateDiagram-v2` text as Mermaid's grammar has it (`state "…" as
 * id`, `{` … `}` for a composite, `a --> b : label`), with nothing from the
 * generator: each state's path is its label's first word under its
 * composite's path.
 */
function readDiagram(text: string): Map<string, DrawnState> {
  const byId = new Map<string, DrawnState>();
  const open: string[] = [];
  const pending: { from: string; to: string; label: string }[] = [];
  for (const line of text.split('\n').map((l) => l.trim())) {
    const state = /^state "([^"<« ]+)[^"]*" as (\w+)( \{)?$/.exec(line);
    if (state) {
      const [, key = '', id = '', composite] = state;
      const parent = open.at(-1);
      const path = parent ? `${byId.get(parent)?.path}.${key}` : key;
      byId.set(id, { path, edges: [] });
      if (composite) open.push(id);
      continue;
    }
    if (line === '}') open.pop();
    const edge = /^(\w+) --> (\w+)(?: : (.*))?$/.exec(line);
    if (edge) {
      const [, from = '', to = '', label = ''] = edge;
      pending.push({ from, to, label });
    }
  }
  for (const { from, to, label } of pending) {
    const target = byId.get(to)?.path;
    if (target) byId.get(from)?.edges.push({ target, label });
  }
  return new Map([...byId.values()].map((state) => [state.path, state]));
}

/** Every state node under the root, by XState's own API. */
function statesOf(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states).flatMap((child) => [
    child,
    ...statesOf(child),
  ]);
}

/**
 * The words an edge's label must show for an event, as the README's legend
 * names them: an invoked actor's outcome by `done`/`error` and its id, an
 * eventless transition by `always`, any other event by its type.
 */
function expectedWords(eventType: string): string[] {
  const actor = /^xstate\.(done|error)\.actor\.(.+)$/.exec(eventType);
  if (actor) return [actor[1] ?? '', actor[2] ?? ''];
  return [eventType];
}

describe.each(DIAGRAMS)('the diagram of $name', ({ machine, options }) => {
  const drawn = readDiagram(toMermaid(machine, options));
  const pathOf = (node: AnyStateNode) => node.path.join('.');

  it('draws every state of the machine, and no other', () => {
    expect([...drawn.keys()].sort()).toEqual(
      statesOf(machine.root).map(pathOf).sort(),
    );
  });

  it('draws each transition as an edge to its target, labelled with its event', () => {
    for (const node of statesOf(machine.root)) {
      const edges = drawn.get(pathOf(node))?.edges ?? [];
      const groups: [string, AnyStateNode['always']][] = [...node.transitions];
      if (node.always) groups.push(['always', node.always]);
      for (const [type, candidates] of groups) {
        for (const target of (candidates ?? []).flatMap(
          (t) => t.target ?? [],
        )) {
          const edge = edges.find(
            (e) =>
              e.target === pathOf(target) &&
              expectedWords(type).every((word) => e.label.includes(word)),
          );
          expect(
            edge,
            `${pathOf(node)} --${type}--> ${pathOf(target)}`,
          ).toBeDefined();
        }
      }
    }
  });

  it('renders, for the atlas, an SVG that shows every state', () => {
    const svg = renderSvg(toMermaid(machine, options));
    expect(svg).toMatch(/^<svg /);
    for (const node of statesOf(machine.root)) expect(svg).toContain(node.key);
  });
});

describe('toMermaid', () => {
  const sample = setup({
    types: { tags: 'spinner' },
    actors: { work: fromPromise(() => Promise.resolve()) },
    guards: { isReady: () => true, canEdit: () => true },
  }).createMachine({
    id: 'm',
    initial: 'idle',
    states: {
      idle: {
        on: {
          edit: {},
          go: [{ guard: 'isReady', target: 'busy' }, { target: 'busy' }],
        },
      },
      busy: {
        tags: 'spinner',
        invoke: { id: 'work', src: 'work', onDone: 'done', onError: 'idle' },
      },
      done: { type: 'final' },
      form: {
        initial: 'a',
        states: {
          a: { on: { next: 'b' } },
          b: {
            on: { edit: { guard: 'canEdit' } },
            always: { guard: 'isReady', target: '#m.done' },
          },
        },
      },
    },
  });

  it('draws guards, fallbacks, invoke outcomes and composites', () => {
    expect(toMermaid(sample)).toBe(
      [
        'stateDiagram-v2',
        '  state "idle<br/>· edit" as m_idle',
        '  state "busy «spinner»" as m_busy',
        '  state "done" as m_done',
        '  state "form" as m_form {',
        '    state "a" as m_form_a',
        '    state "b<br/>· edit [canEdit]" as m_form_b',
        '    [*] --> m_form_a',
        '    m_form_a --> m_form_b : next',
        '  }',
        '  [*] --> m_idle',
        '  m_idle --> m_busy : go [isReady]<br/>go [else]',
        '  m_busy --> m_done : done: work',
        '  m_busy --> m_idle : error: work',
        '  m_form_b --> m_done : always [isReady]',
        '  m_done --> [*]',
        '',
      ].join('\n'),
    );
  });

  it('with effects, names transition and entry actions, with their parameters', () => {
    const effectful = setup({
      actions: {
        store: (_, _choice: string) => {},
        load: () => {},
        clean: (_, _how?: { how: string; times: number }) => {},
      },
    }).createMachine({
      id: 'e',
      initial: 'off',
      states: {
        off: {
          on: {
            on: {
              target: 'on',
              actions: [
                { type: 'store', params: 'yes' },
                { type: 'clean', params: { how: 'all', times: 2 } },
              ],
            },
            noop: {},
          },
        },
        on: { entry: ['load', 'clean'] },
      },
    });
    expect(toMermaid(effectful, { effects: true })).toBe(
      [
        'stateDiagram-v2',
        '  state "off<br/>· noop" as e_off',
        '  state "on<br/>entry / load, clean" as e_on',
        '  [*] --> e_off',
        '  e_off --> e_on : on<br/>/ store(yes)<br/>/ clean',
        '',
      ].join('\n'),
    );
    // Without the option, the same machine shows events only.
    expect(toMermaid(effectful)).toContain('e_off --> e_on : on\n');
  });

  it('refuses two states that would share a Mermaid id', () => {
    const clash = createMachine({
      id: 'm',
      initial: 'a_b',
      states: { a_b: {}, a: { initial: 'b', states: { b: {} } } },
    });
    expect(() => toMermaid(clash)).toThrow(/m_a_b/);
  });
});
