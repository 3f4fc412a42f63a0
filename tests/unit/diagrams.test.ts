import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMachine, fromPromise, setup } from 'xstate';
import {
  DIAGRAM_DIR,
  DIAGRAMS,
  diagramFiles,
} from '../../scripts/diagramFiles';
import {
  eventLabel,
  mermaidId,
  stateNodesOf,
  toMermaid,
} from '../../scripts/mermaid';
import { PROJECT_ROOT } from '../../scripts/page/paths';

const STALE = 'stale: run npm run diagrams';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function committed(path: string): string {
  const file = resolve(PROJECT_ROOT, path);
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

// Regenerated exactly as `npm run diagrams` does, SVGs included: the
// renderer is synchronous and deterministic (a few hundred ms in jsdom).
const fresh = diagramFiles(committed('README.md'));
const freshContent = (path: string) =>
  fresh.find((file) => file.path === path)?.content ?? '';

describe('the committed machine diagrams', () => {
  it.each(fresh.filter(({ path }) => path.endsWith('.mmd')))(
    '$path matches the machine',
    ({ path, content }) => {
      expect(committed(path), `${path} is ${STALE}`).toBe(content);
    },
  );

  // Compared as booleans: a diff of a whole SVG or README helps nobody.
  it.each(fresh.filter(({ path }) => !path.endsWith('.mmd')))(
    '$path matches the machine',
    ({ path, content }) => {
      expect(committed(path) === content, `${path} is ${STALE}`).toBe(true);
    },
  );
});

describe.each(DIAGRAMS)('the diagram of $name', ({ name, machine }) => {
  const text = toMermaid(machine);

  it('declares every state node; composites with their initial arrow', () => {
    for (const node of stateNodesOf(machine)) {
      const id = mermaidId(node);
      const key = escape(node.key);
      expect(text).toMatch(new RegExp(`state "${key}\\b.*" as ${id}\\b`));
      if (Object.keys(node.states).length > 0) {
        expect(text).toMatch(new RegExp(`as ${id} \\{\\n.*\\n[^}]*\\[\\*\\]`));
      }
      if (node.type === 'final') expect(text).toContain(`${id} --> [*]`);
    }
  });

  it("shows every transition's event, and an edge to each target", () => {
    for (const node of stateNodesOf(machine)) {
      const groups = [...node.transitions];
      if (node.always) groups.push(['always', node.always]);
      for (const [type, candidates] of groups) {
        expect(text).toContain(eventLabel(type));
        for (const target of candidates.flatMap((t) => t.target ?? [])) {
          expect(text).toContain(`${mermaidId(node)} --> ${mermaidId(target)}`);
        }
      }
    }
  });

  it('renders to an SVG that shows every state', () => {
    const svg = freshContent(`${DIAGRAM_DIR}/${name}.svg`);
    expect(svg).toMatch(/^<svg /);
    for (const node of stateNodesOf(machine)) expect(svg).toContain(node.key);
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
          a: { on: { next: 'b' }, after: { 500: 'b' } },
          b: {
            on: { edit: { guard: 'canEdit' } },
            always: { guard: 'isReady', target: '#m.done' },
          },
        },
      },
    },
  });

  it('draws guards, fallbacks, invoke outcomes, delays and composites', () => {
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
        '    m_form_a --> m_form_b : next<br/>after 500ms',
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
