/**
 * The atlas page: one self-contained HTML file (styles inline, diagrams
 * inline as SVG, pictures as relative links to `shots/`), so it opens from
 * disk with no network. For each machine: its diagram, whose states link to
 * their pictures, then every state node in the machine's order with its
 * pictures at both widths, in the light and the dark scheme (and in forced
 * colours for some), and, beside them, the state's name, tags, the events
 * it accepts and the path of events that reached it.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { mermaidId, stateNodesOf } from '../docs/mermaid';
import type { Appearance, AtlasManifest, ShotRecord, Width } from './manifest';

/** A machine's diagram as drawn for docs/diagrams (scripts/docs/diagramFiles.ts). */
export interface AtlasDiagram {
  name: string;
  machine: AnyStateMachine;
  svg: string;
  /** Where its states are pictured, when not on the sign-up page (HTML). */
  about?: string;
}

const WIDTH_NAMES: Record<Width, string> = {
  desktop: 'Desktop, 1280 px',
  phone: 'Phone, 375 px',
  reflow320: 'Reflow, 320 px',
  zoom200: '1280 px at 200 % zoom',
};

const APPEARANCE_NAMES: Record<Appearance, string> = {
  light: 'light scheme',
  dark: 'dark scheme',
  forced: 'forced colours',
};

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const code = (text: string) => `<code>${escapeHtml(text)}</code>`;

/** `consent.unset.open` → `unset.open`: the id without the machine's. */
function relative(stateId: string): string {
  return stateId.split('.').slice(1).join('.');
}

const stateLink = (stateId: string) =>
  `<a href="#${escapeHtml(stateId)}">${code(relative(stateId))}</a>`;

/**
 * The SVG for inlining: ids prefixed with the diagram's name (both SVGs
 * define `arrowhead`), and every state and composite wrapped in a link to
 * its section.
 */
export function linkedSvg({ name, machine, svg }: AtlasDiagram): string {
  const targets = new Map(
    stateNodesOf(machine).map((node) => [mermaidId(node), node]),
  );
  let result = svg;
  // ` id=`, not `data-id=`: the states' ids are the links' targets below.
  for (const [, id] of svg.matchAll(/\sid="([^"]+)"/g)) {
    result = result
      .replaceAll(` id="${id}"`, ` id="${name}-${id}"`)
      .replaceAll(`url(#${id})`, `url(#${name}-${id})`);
  }
  return result.replace(
    /<g class="(?:node|subgraph)" data-id="([^"]*)"[\s\S]*?<\/g>/g,
    (group, id: string) => {
      const node = targets.get(id);
      if (!node) return group;
      return `<a href="#${escapeHtml(node.id)}"><title>${escapeHtml(relative(node.id))}: its pictures</title>${group}</a>`;
    },
  );
}

function momentNote(shot: ShotRecord): string {
  const last = shot.events.at(-1) ?? '';
  switch (shot.moment) {
    case 'during':
      return '';
    case 'before':
      return `<dt>Pictured</dt><dd class="note">Momentary: the machine leaves this state in the same step that enters it (an eventless transition), so the page never draws it. This is the page just before ${code(last)} entered it.</dd>`;
    case 'prerender':
      return `<dt>Pictured</dt><dd class="note">Momentary: decided when the page's script starts the machine, before it draws anything of its own. This is the page as first drawn, before its script ran (the same for every visit).</dd>`;
  }
}

/** The visit's start and its events, one per line. */
function reach(shot: ShotRecord): string {
  const from = shot.from ? `<p>Start: ${escapeHtml(shot.from)}</p>` : '';
  const events =
    shot.events.length > 0
      ? `<ol>${shot.events.map((event) => `<li>${code(event)}</li>`).join('')}</ol>`
      : '<p>no event: the state the visit starts in</p>';
  return from + events;
}

function shotHtml(shot: ShotRecord, final: boolean): string {
  const list = (items: string[], none: string) =>
    items.length > 0 ? items.map(code).join(' ') : none;
  const accepts =
    shot.moment !== 'during'
      ? 'nothing: it is left at once'
      : list(shot.accepts, final ? 'nothing: a final state' : 'nothing');
  const leads =
    shot.leadsTo.length > 0
      ? `<dt>Leads at once to</dt><dd>${shot.leadsTo.map(stateLink).join(', ')}</dd>`
      : '';
  const appearances = (['light', 'dark', 'forced'] as const).flatMap(
    (appearance) => {
      const files = shot.files[appearance];
      return files ? [{ appearance, files }] : [];
    },
  );
  const pictures = appearances
    .map(({ appearance, files }) =>
      (Object.keys(WIDTH_NAMES) as Width[])
        .flatMap((width) => {
          const file = files[width];
          return file === undefined ? [] : [{ width, file }];
        })
        .map(
          ({ width, file }) =>
            `<figure class="${width}"><a href="${file}"><img src="${file}" alt="The page in ${escapeHtml(relative(shot.stateId))}${shot.variant ? ` (${escapeHtml(shot.variant)})` : ''}, ${WIDTH_NAMES[width]}, ${APPEARANCE_NAMES[appearance]}" loading="lazy"></a><figcaption>${WIDTH_NAMES[width]}, ${APPEARANCE_NAMES[appearance]}</figcaption></figure>`,
        )
        .join(''),
    )
    .map((row) => `<div class="pictures">${row}</div>`)
    .join('');
  return `<div class="shot" id="shot-${escapeHtml(shot.id)}">
<dl>
<dt>State</dt><dd>${code(relative(shot.stateId))}${shot.variant ? ` — ${escapeHtml(shot.variant)}` : ''}</dd>
<dt>Tags</dt><dd>${list(shot.tags, 'none')}</dd>
<dt>Accepts</dt><dd>${accepts}</dd>
<dt>Reached by</dt><dd>${reach(shot)}</dd>
${momentNote(shot)}${leads}
</dl>
<div class="appearances">${pictures}</div>
</div>`;
}

function stateHtml(node: AnyStateNode, shots: ShotRecord[]): string {
  const own = shots.filter((shot) => shot.stateId === node.id);
  const children = Object.values(node.states) as AnyStateNode[];
  const kind =
    node.type === 'final'
      ? 'final state'
      : children.length > 0
        ? 'composite state'
        : 'state';
  const about =
    children.length > 0
      ? `<p>Pictured by its states: ${children.map((child) => stateLink(child.id)).join(', ')}.</p>`
      : '';
  const tags = [...node.tags].sort().map((tag) => `«${escapeHtml(tag)}»`);
  return `<article class="state" id="${escapeHtml(node.id)}">
<h3>${code(relative(node.id))} <small>${kind}${tags.length ? ` ${tags.join(' ')}` : ''}</small></h3>
${about}${own.map((shot) => shotHtml(shot, node.type === 'final')).join('\n')}
</article>`;
}

const STYLE = `
:root { color-scheme: light; font: 15px/1.45 system-ui, sans-serif; color: #1f2328; background: #fff; }
body { margin: 0; }
header { padding: 24px 32px 8px; max-width: 72rem; }
h1 { margin: 0 0 8px; font-size: 1.6rem; }
h2 { margin: 0 0 8px; font-size: 1.3rem; }
h3 { margin: 0 0 12px; font-size: 1.1rem; }
h3 small { font-weight: normal; color: #59636e; font-size: 0.85rem; }
code { font: 0.9em ui-monospace, SFMono-Regular, Menlo, monospace; background: #f3f4f6; padding: 1px 4px; border-radius: 3px; }
nav ul { padding-left: 1.2rem; }
.machine { display: grid; grid-template-columns: minmax(300px, 38%) 1fr; gap: 24px; padding: 16px 32px 32px; border-top: 1px solid #d1d9e0; }
.diagram-column { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow: auto; padding-top: 8px; }
/* At its own size: scaled down, its labels would be too small to read. */
.diagram svg { display: block; max-width: none; height: auto; }
.diagram a:hover rect, .diagram a:focus rect { stroke: #0969da; stroke-width: 2; }
.state { padding: 16px 0; border-bottom: 1px solid #e5e7eb; scroll-margin-top: 8px; }
.state:target { background: #fff8c5; }
.shot { display: grid; grid-template-columns: minmax(200px, 15rem) 1fr; gap: 16px; margin: 0 0 20px; }
.shot:target { outline: 3px solid #0969da; }
dl { margin: 0; display: grid; grid-template-columns: auto 1fr; gap: 4px 10px; align-content: start; font-size: 0.9rem; }
dt { font-weight: 600; color: #59636e; }
dd { margin: 0; }
dd p { margin: 0; }
dd ol { margin: 0; padding-left: 1.6em; }
.note { color: #9a6700; }
.appearances { display: grid; gap: 12px; align-content: start; }
.pictures { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
figure { margin: 0; }
figure.desktop img { width: 360px; }
figure.phone img { width: 130px; }
figure.reflow320 img { width: 112px; }
figure.zoom200 img { width: 180px; }
figure img { display: block; border: 1px solid #d1d9e0; height: auto; }
figcaption { font-size: 0.8rem; color: #59636e; }
`;

/**
 * The atlas page for a manifest (scripts/atlas/shoot.ts) and the machines'
 * diagrams.
 */
export function atlasHtml(
  manifest: AtlasManifest,
  diagrams: AtlasDiagram[],
): string {
  const sections = diagrams.map((diagram) => {
    const shots =
      manifest.machines.find((m) => m.name === diagram.name)?.shots ?? [];
    const nodes = stateNodesOf(diagram.machine);
    return `<section class="machine" id="${escapeHtml(diagram.name)}">
<div class="diagram-column">
<h2>${escapeHtml(diagram.name)}</h2>
<p>From <code>machines/${escapeHtml(diagram.name)}.ts</code>. Select a state to see it. <a href="diagrams/${escapeHtml(diagram.name)}.svg">Diagram at full size</a>.</p>
${diagram.about ? `<p>${diagram.about}</p>\n` : ''}
<div class="diagram">${linkedSvg(diagram)}</div>
</div>
<div class="states">
${nodes.map((node) => stateHtml(node, shots)).join('\n')}
</div>
</section>`;
  });
  const contents = diagrams
    .map(
      (diagram) =>
        `<li><a href="#${escapeHtml(diagram.name)}">${escapeHtml(diagram.name)}</a>: ${stateNodesOf(
          diagram.machine,
        )
          .map((node) => stateLink(node.id))
          .join(' ')}</li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>State atlas: the sign-up page and / in every state</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>State atlas: the sign-up page and / in every state</h1>
<p>Every state of the page's two machines, as a visitor sees it: pictures taken in Chromium on the built page, at ${escapeHtml(manifest.widths.map((width) => WIDTH_NAMES[width]).join('; '))}, in the light and the dark scheme (the form, its errors and the consent dialog also in forced colours), along the paths the model-based tests take. Then every state of the site monitor's machine, on <code>/</code> as the service renders it for a site on this machine, in the light and the dark scheme and in forced colours. Beside each picture: the state, its tags, the events it accepts, and the events that reached it. Generated by <code>npm run atlas</code> from the machines; the server's replies and Google's reCAPTCHA are local stand-ins.</p>
<nav><ul>
${contents}
</ul></nav>
</header>
${sections.join('\n')}
</body>
</html>
`;
}
