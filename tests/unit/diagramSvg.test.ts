/**
 * The machine diagrams' SVGs look the same in any SVG viewer: concrete
 * colours only (librsvg draws `var(--…)` fills black), and no edge label
 * drawn over a line, a state, a composite's border or another label, even
 * in a wide fallback font (scripts/diagramSvg.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIAGRAM_DIR, DIAGRAMS } from '../../scripts/diagramFiles';
import {
  colorMix,
  diagramGeometry,
  labelClashes,
  segmentMeetsBox,
  withConcreteColours,
} from '../../scripts/diagramSvg';
import { mermaidId, stateNodesOf } from '../../scripts/mermaid';
import { PROJECT_ROOT } from '../../scripts/page/paths';

function committedSvg(name: string): string {
  const file = resolve(PROJECT_ROOT, `${DIAGRAM_DIR}/${name}.svg`);
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

describe.each(DIAGRAMS)('$name.svg', ({ name, machine }) => {
  const svg = committedSvg(name);
  const geometry = diagramGeometry(svg);

  it('uses concrete colours only: no CSS variable, no color-mix()', () => {
    expect(svg).toMatch(/^<svg /);
    expect(svg).not.toContain('var(');
    expect(svg).not.toContain('color-mix');
    expect(svg).not.toMatch(/--[\w-]+\s*:/);
    const colours = [...svg.matchAll(/(?:fill|stroke)="([^"]*)"/g)].map(
      (m) => m[1],
    );
    expect(colours.length).toBeGreaterThan(20);
    for (const colour of colours) {
      expect(colour).toMatch(/^(#[0-9a-f]{6}|#[0-9A-F]{6}|none)$/);
    }
  });

  it('fetches nothing when opened', () => {
    expect(svg).not.toMatch(/@import|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });

  it('draws every state and every edge label the machine has', () => {
    const drawn = new Set([
      ...geometry.nodes.map((node) => node.id),
      ...geometry.groups.map((group) => group.id),
    ]);
    for (const node of stateNodesOf(machine)) {
      expect(drawn).toContain(mermaidId(node));
    }
    expect(geometry.labels.length).toBeGreaterThan(5);
    expect(geometry.edges.length).toBeGreaterThan(geometry.labels.length);
  });

  it('draws no edge label over another edge, a state, a border or a label', () => {
    expect(labelClashes(svg)).toEqual([]);
  });
});

describe('labelClashes', () => {
  const svg = committedSvg('signUpMachine');

  it('reports a label moved onto another edge', () => {
    const geometry = diagramGeometry(svg);
    const [label] = geometry.labels;
    const other = geometry.edges.find(
      (edge) => label && (edge.from !== label.from || edge.to !== label.to),
    );
    const segment = other?.segments[0];
    if (!label || !segment) throw new Error('the diagram has no labels');
    // Centre the first label on the first segment of another edge.
    const dx =
      (segment.x1 + segment.x2) / 2 - (label.box.x + label.box.width / 2);
    const dy =
      (segment.y1 + segment.y2) / 2 - (label.box.y + label.box.height / 2);
    const moved = svg.replace(
      /(<g class="edge-label"[^>]*>\s*<rect )x="([^"]*)" y="([^"]*)"/,
      (_, head: string, x: string, y: string) =>
        `${head}x="${Number(x) + dx}" y="${Number(y) + dy}"`,
    );
    expect(labelClashes(moved).join('\n')).toContain(
      `crosses the edge ${other?.from ?? ''} → ${other?.to ?? ''}`,
    );
  });
});

describe('segmentMeetsBox', () => {
  const box = { x: 10, y: 10, width: 20, height: 10 };

  it('sees segments through, into and beside a box', () => {
    expect(segmentMeetsBox({ x1: 0, y1: 15, x2: 40, y2: 15 }, box)).toBe(true);
    expect(segmentMeetsBox({ x1: 20, y1: 0, x2: 20, y2: 12 }, box)).toBe(true);
    expect(segmentMeetsBox({ x1: 0, y1: 0, x2: 40, y2: 30 }, box)).toBe(true);
    expect(segmentMeetsBox({ x1: 31, y1: 0, x2: 31, y2: 40 }, box)).toBe(false);
    expect(segmentMeetsBox({ x1: 0, y1: 9, x2: 40, y2: 9 }, box)).toBe(false);
    expect(segmentMeetsBox({ x1: 0, y1: 0, x2: 9, y2: 30 }, box)).toBe(false);
  });
});

describe('concrete colours', () => {
  it('mixes in sRGB as CSS Color 5 color-mix() does', () => {
    expect(colorMix('in srgb, #000000 50%, #ffffff')).toBe('#808080');
    expect(colorMix('in srgb, #27272A 20%, #FFFFFF')).toBe('#d4d4d4');
    expect(colorMix('in srgb, #ff0000, #0000ff')).toBe('#800080');
    expect(colorMix('in srgb, #ff0000 30%, #0000ff 30%')).toBe('#800080');
    expect(() => colorMix('in oklch, #000000, #ffffff')).toThrow(/oklch/);
  });

  it('resolves variables, their fallbacks and nested color-mix()', () => {
    const svg = [
      '<svg xmlns="http://www.w3.org/2000/svg" style="--bg:#FFFFFF;--fg:#000000;background:var(--bg)">',
      '<style>',
      '  svg {',
      '    /* derived */',
      '    --_line: var(--line, color-mix(in srgb, var(--fg) 50%, var(--bg)));',
      '    --_text: var(--fg);',
      '  }',
      '</style>',
      '<rect fill="var(--_line)" stroke="var(--_text)" />',
      '</svg>',
    ].join('\n');
    expect(withConcreteColours(svg)).toBe(
      [
        '<svg xmlns="http://www.w3.org/2000/svg" style="background:#FFFFFF">',
        '<style>',
        '</style>',
        '<rect fill="#808080" stroke="#000000" />',
        '</svg>',
      ].join('\n'),
    );
  });

  it('refuses a variable with no value and no fallback', () => {
    expect(() =>
      withConcreteColours('<svg style=""><rect fill="var(--nothing)" /></svg>'),
    ).toThrow(/--nothing/);
  });
});
