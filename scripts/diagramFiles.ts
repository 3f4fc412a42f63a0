/**
 * What `npm run diagrams` writes, computed without writing it, so the
 * staleness test (`tests/unit/diagrams.test.ts`) compares the same thing:
 * for each machine its Mermaid text (`docs/diagrams/<name>.mmd`), an SVG of
 * it (`docs/diagrams/<name>.svg`, rendered offline by `beautiful-mermaid`),
 * and the README's block between `<!-- diagram:<name> -->` and
 * `<!-- /diagram -->`.
 */
import { renderMermaidSVG } from 'beautiful-mermaid';
import type { AnyStateMachine } from 'xstate';
import { consentMachine } from '../machines/consentMachine';
import { signUpMachine } from '../machines/signUpMachine';
import {
  labelClashes,
  placeLabels,
  widenLabels,
  withConcreteColours,
} from './diagramSvg';
import { toMermaid, type MermaidOptions } from './mermaid';

/** Where the diagrams live, relative to the project root. */
export const DIAGRAM_DIR = 'docs/diagrams';

/**
 * One machine to draw; `name` names its files and its README block;
 * `options` what its diagram shows (scripts/mermaid.ts).
 */
export interface Diagram {
  name: string;
  machine: AnyStateMachine;
  options?: MermaidOptions;
}

/**
 * The machines drawn, in the README's order. The consent machine's few
 * actions are its point (what is stored, signalled, loaded, removed), so
 * its diagram names them.
 */
export const DIAGRAMS: readonly Diagram[] = [
  { name: 'signUpMachine', machine: signUpMachine },
  {
    name: 'consentMachine',
    machine: consentMachine,
    options: { effects: true },
  },
];

/** A machine's Mermaid text as its diagram draws it (see {@link DIAGRAMS}). */
export function diagramMermaid(machine: AnyStateMachine): string {
  const diagram = DIAGRAMS.find((entry) => entry.machine === machine);
  return toMermaid(machine, diagram?.options);
}

/** A file to write: its path relative to the project root, and content. */
export interface DiagramFile {
  path: string;
  content: string;
}

/**
 * The SVG of a Mermaid text, the same in every SVG viewer: beautiful-mermaid's
 * default light theme with its colours made concrete and its web-font
 * `@import` removed, so that opening the file fetches nothing (the text
 * falls back to the system sans-serif), and its edge labels sized for a wide
 * fallback font and drawn over nothing (scripts/diagramSvg.ts). Tries the
 * layouts of {@link LAYOUTS} in order and keeps the first whose labels are
 * clean. Synchronous and deterministic for a given renderer version.
 * @throws Error listing the clashes when no layout is clean
 */
export function renderSvg(mermaid: string): string {
  let clashes: string[] = [];
  for (const layout of LAYOUTS) {
    const svg = placeLabels(
      widenLabels(
        withConcreteColours(
          renderMermaidSVG(mermaid, layout).replace(
            /^\s*@import url\([^)]*\);\n/gm,
            '',
          ),
        ),
      ),
    );
    clashes = labelClashes(svg);
    if (clashes.length === 0) return svg.trimEnd() + '\n';
  }
  throw new Error(
    `every layout draws a label over something:\n${clashes.join('\n')}`,
  );
}

/**
 * The layouts tried, in order (px between states side by side, and between
 * layers): the renderer's default first, then roomier ones, which give the
 * labels more places to go.
 */
export const LAYOUTS: readonly { nodeSpacing: number; layerSpacing: number }[] =
  [
    { nodeSpacing: 28, layerSpacing: 48 },
    { nodeSpacing: 28, layerSpacing: 64 },
    { nodeSpacing: 28, layerSpacing: 96 },
    { nodeSpacing: 48, layerSpacing: 96 },
    { nodeSpacing: 72, layerSpacing: 96 },
    { nodeSpacing: 96, layerSpacing: 96 },
  ];

/** The README block of one diagram: its Mermaid text and a link to its SVG. */
export function readmeBlock(name: string, mermaid: string): string {
  return [
    '```mermaid',
    mermaid.trimEnd(),
    '```',
    '',
    `Generated from \`machines/${name}.ts\`; as an SVG: ` +
      `[${DIAGRAM_DIR}/${name}.svg](${DIAGRAM_DIR}/${name}.svg).`,
  ].join('\n');
}

/**
 * `readme` with the block of each named diagram replaced. Throws when a
 * block's markers are missing, so a renamed README heading cannot silently
 * leave a diagram out.
 */
export function withDiagramBlocks(
  readme: string,
  blocks: ReadonlyMap<string, string>,
): string {
  let result = readme;
  for (const [name, block] of blocks) {
    const open = `<!-- diagram:${name} -->`;
    const close = '<!-- /diagram -->';
    const start = result.indexOf(open);
    const end = start < 0 ? -1 : result.indexOf(close, start + open.length);
    if (end < 0) {
      throw new Error(`README.md has no "${open}" … "${close}" block`);
    }
    result =
      result.slice(0, start + open.length) +
      `\n\n${block}\n\n` +
      result.slice(end);
  }
  return result;
}

/**
 * Every file `npm run diagrams` writes, with the content it writes: the
 * `.mmd` and `.svg` of each machine, then the README (given as it is now)
 * with its diagram blocks regenerated.
 */
export function diagramFiles(readme: string): DiagramFile[] {
  const files: DiagramFile[] = [];
  const blocks = new Map<string, string>();
  for (const { name, machine, options } of DIAGRAMS) {
    const mermaid = toMermaid(machine, options);
    files.push({ path: `${DIAGRAM_DIR}/${name}.mmd`, content: mermaid });
    files.push({
      path: `${DIAGRAM_DIR}/${name}.svg`,
      content: renderSvg(mermaid),
    });
    blocks.set(name, readmeBlock(name, mermaid));
  }
  files.push({ path: 'README.md', content: withDiagramBlocks(readme, blocks) });
  return files;
}
