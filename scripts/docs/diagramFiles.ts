/**
 * What `npm run diagrams` writes, computed without writing it, so the
 * staleness test (`tests/unit/diagrams.test.ts`) compares the same thing:
 * for each machine its Mermaid text (`docs/diagrams/<name>.mmd`) and the
 * README's block between `<!-- diagram:<name> -->` and `<!-- /diagram -->`.
 * The state atlas draws the same text as an SVG ({@link renderSvg}; ADR-0079).
 */
import { renderMermaidSVG } from 'beautiful-mermaid';
import type { AnyStateMachine } from 'xstate';
import { consentMachine } from '../../machines/consentMachine';
import { monitorMachine } from '../../machines/monitorMachine';
import { signUpMachine } from '../../machines/signUpMachine';
import { toMermaid, type MermaidOptions } from './mermaid';

/** Where the diagrams live, relative to the project root. */
export const DIAGRAM_DIR = 'docs/diagrams';

/**
 * One machine to draw; `name` names its files and its README block;
 * `options` what its diagram shows (scripts/docs/mermaid.ts); `page` whether the
 * page runs it, so that the state atlas pictures each of its states.
 */
export interface Diagram {
  name: string;
  machine: AnyStateMachine;
  options?: MermaidOptions;
  page: boolean;
}

/**
 * The machines drawn, in the README's order. The consent machine's few
 * actions are its point (what is stored, signalled, loaded, removed), so
 * its diagram names them; so are the monitor machine's alerts. The monitor
 * machine is the service's: it runs in no page, so the page's sweeps (the
 * dark-scheme audit, the atlas check of the page's states) leave it out;
 * the atlas pictures `/` in each of its states on its own
 * (scripts/atlas/monitor.ts).
 */
export const DIAGRAMS: readonly Diagram[] = [
  { name: 'signUpMachine', machine: signUpMachine, page: true },
  {
    name: 'consentMachine',
    machine: consentMachine,
    options: { effects: true },
    page: true,
  },
  {
    name: 'monitorMachine',
    machine: monitorMachine,
    options: { effects: true },
    page: false,
  },
];

/**
 * The diagrams of the machines the page runs: those whose every state the
 * state atlas pictures and the dark-scheme audit checks (scripts/atlas/).
 */
export const PAGE_DIAGRAMS: readonly Diagram[] = DIAGRAMS.filter(
  ({ page }) => page,
);

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
 * The SVG of a Mermaid text for the state atlas, drawn offline by
 * beautiful-mermaid with its default theme. Its web-font `@import` is
 * removed, so opening the atlas fetches nothing. The SVG's colours are CSS
 * custom properties, which browsers resolve.
 *
 * @param mermaid a `stateDiagram-v2` text ({@link diagramMermaid})
 * @returns the SVG markup, each state's group carrying its Mermaid id
 */
export function renderSvg(mermaid: string): string {
  return renderMermaidSVG(mermaid).replace(/^\s*@import url\([^)]*\);\n/gm, '');
}

/** The README block of one diagram: its Mermaid text and where it lives. */
export function readmeBlock(name: string, mermaid: string): string {
  return [
    '```mermaid',
    mermaid.trimEnd(),
    '```',
    '',
    `Generated from \`machines/${name}.ts\`; the Mermaid text alone: ` +
      `[${DIAGRAM_DIR}/${name}.mmd](${DIAGRAM_DIR}/${name}.mmd).`,
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
 * `.mmd` of each machine, then the README (given as it is now)
 * with its diagram blocks regenerated.
 */
export function diagramFiles(readme: string): DiagramFile[] {
  const files: DiagramFile[] = [];
  const blocks = new Map<string, string>();
  for (const { name, machine, options } of DIAGRAMS) {
    const mermaid = toMermaid(machine, options);
    files.push({ path: `${DIAGRAM_DIR}/${name}.mmd`, content: mermaid });
    blocks.set(name, readmeBlock(name, mermaid));
  }
  files.push({ path: 'README.md', content: withDiagramBlocks(readme, blocks) });
  return files;
}
