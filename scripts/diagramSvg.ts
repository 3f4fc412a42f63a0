/**
 * Makes beautiful-mermaid's SVGs look the same in every SVG viewer, and
 * measures them so a test can tell.
 *
 * beautiful-mermaid (1.1.x) writes every colour as a CSS custom property
 * (`fill="var(--_node-fill)"`) derived with `color-mix()` in a `<style>`
 * block. Browsers resolve them; librsvg (behind many previews and image
 * tools) does not, and draws every box black. {@link withConcreteColours}
 * resolves them to `#rrggbb` and removes the declarations.
 *
 * Its layout sizes edge labels with a font-agnostic width estimate, while
 * viewers draw the text in whatever sans-serif they have (DejaVu Sans here:
 * up to 1.23 × the estimate), so a long label's text ran over the line
 * beside it. {@link widenLabels} widens each label's box to hold the text
 * in a wide fallback font, and {@link labelClashes} lists every label box
 * that crosses another edge, a state, a composite's border or another label.
 *
 * The SVG is read with regular expressions over the renderer's own,
 * deterministic markup (`<polyline class="edge" …>`, `<g class="edge-label">`,
 * `<g class="node">`, `<g class="subgraph">`), not as general SVG.
 */

/** Axis-aligned box in SVG user units (px). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A straight piece of an edge's polyline, in SVG user units. */
export interface Segment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** What a rendered diagram is made of, for checking overlaps. */
export interface DiagramGeometry {
  /** The drawing's size (its `viewBox`). */
  size: { width: number; height: number };
  /** `from`/`to`: the Mermaid ids of the edge's ends. */
  edges: { from: string; to: string; segments: Segment[] }[];
  labels: { from: string; to: string; text: string; box: Box }[];
  /** States, and the start/end dots (as their bounding boxes). */
  nodes: { id: string; box: Box }[];
  /** Composite states' outer boxes, and their header bands. */
  groups: { id: string; box: Box; header: Box }[];
}

/** beautiful-mermaid's padding between a label's text and its box (px). */
const LABEL_PADDING = 8;

/**
 * How much wider than beautiful-mermaid's estimate a label's box is made:
 * DejaVu Sans, the usual sans-serif fallback on Linux and among the widest,
 * measured up to 1.23 × the estimate (for `submit`) in Chromium; the
 * fallbacks elsewhere (Arial, Helvetica, Segoe UI) are narrower.
 */
export const LABEL_WIDTH_FACTOR = 1.25;

/** The least gap (px) between a label's box and anything else drawn. */
export const CLEARANCE = 3;

// --- colours ----------------------------------------------------------

/** Splits at commas that are not inside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim());
}

/** Replaces each outermost `name(…)` call in `text` with `replace(args)`. */
function replaceCalls(
  text: string,
  name: string,
  replace: (args: string) => string,
): string {
  let result = '';
  let rest = text;
  for (;;) {
    const start = rest.indexOf(`${name}(`);
    if (start < 0) return result + rest;
    let depth = 0;
    let end = start + name.length;
    for (; end < rest.length; end += 1) {
      if (rest[end] === '(') depth += 1;
      else if (rest[end] === ')' && --depth === 0) break;
    }
    if (depth !== 0) throw new Error(`unbalanced ${name}( in "${text}"`);
    result +=
      rest.slice(0, start) + replace(rest.slice(start + name.length + 1, end));
    rest = rest.slice(end + 1);
  }
}

function parseHex(colour: string): [number, number, number] {
  const hex = /^#([0-9a-f]{6})$/i.exec(colour.trim())?.[1];
  if (!hex) throw new Error(`not a #rrggbb colour: "${colour}"`);
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [
    number,
    number,
    number,
  ];
}

const toHex = (channels: number[]) =>
  '#' +
  channels
    .map((c) =>
      Math.round(Math.min(255, Math.max(0, c)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('');

/**
 * `color-mix(in srgb, A p%, B q%)` of two opaque `#rrggbb` colours (CSS
 * Color 5, "color-mix()": a missing percentage is 100 % minus the other,
 * both missing is 50 % each, and percentages are scaled to sum to 100 %).
 * @throws Error for another colour space or colour syntax
 */
export function colorMix(args: string): string {
  const [space, ...colours] = splitTopLevel(args);
  if (space !== 'in srgb' || colours.length !== 2) {
    throw new Error(`unsupported color-mix(${args})`);
  }
  const parsed = colours.map((part) => {
    const match = /^(\S+)(?:\s+([\d.]+)%)?$/.exec(part);
    if (!match?.[1]) throw new Error(`unsupported color-mix part "${part}"`);
    return {
      rgb: parseHex(match[1]),
      percent: match[2] === undefined ? undefined : Number(match[2]),
    };
  });
  const [a, b] = parsed as [(typeof parsed)[0], (typeof parsed)[0]];
  const pa = a.percent ?? (b.percent === undefined ? 50 : 100 - b.percent);
  const pb = b.percent ?? 100 - pa;
  const sum = pa + pb;
  return toHex(a.rgb.map((c, i) => (c * pa + (b.rgb[i] ?? 0) * pb) / sum));
}

/** Declarations `--name: value;` in a CSS block or a style attribute. */
function customProperties(css: string): [string, string][] {
  return [...css.matchAll(/(--[\w-]+)\s*:\s*([^;]+?)\s*(?:;|$)/g)].map((m) => [
    m[1] ?? '',
    m[2] ?? '',
  ]);
}

/**
 * The SVG with every `var(--…)` replaced by the concrete colour it stands
 * for (fallbacks and `color-mix()` evaluated) and the custom property
 * declarations removed: the `svg { … }` rule of its `<style>` and the
 * `--bg`/`--fg` of the root's `style` attribute.
 * @throws Error when a variable has no value and no fallback, or a colour is
 *   not `#rrggbb`
 */
export function withConcreteColours(svg: string): string {
  const rootStyle = /^<svg [^>]*style="([^"]*)"/.exec(svg)?.[1] ?? '';
  const rule = /\n\s*svg\s*\{[^}]*\}/.exec(svg)?.[0] ?? '';
  const declared = new Map([
    ...customProperties(rootStyle),
    ...customProperties(rule.replace(/\/\*[\s\S]*?\*\//g, '')),
  ]);
  const evaluate = (value: string, seen: string[] = []): string =>
    replaceCalls(
      replaceCalls(value, 'var', (args) => {
        const [name = '', ...fallback] = splitTopLevel(args);
        if (seen.includes(name)) throw new Error(`${name} refers to itself`);
        const own = declared.get(name);
        if (own !== undefined) return evaluate(own, [...seen, name]);
        if (fallback.length > 0) return evaluate(fallback.join(', '), seen);
        throw new Error(`${name} has no value`);
      }),
      'color-mix',
      colorMix,
    );
  const concreteRoot = rootStyle
    .split(';')
    .filter((declaration) => !declaration.trim().startsWith('--'))
    .join(';');
  return evaluate(
    svg
      .replace(rule, '')
      .replace(`style="${rootStyle}"`, `style="${concreteRoot}"`),
  );
}

// --- geometry ---------------------------------------------------------

const number = (attributes: string, name: string) => {
  const value = new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1];
  if (value === undefined) throw new Error(`no ${name} in <${attributes}>`);
  return Number(value);
};

const text = (attributes: string, name: string) =>
  new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1] ?? '';

const boxOf = (rect: string): Box => ({
  x: number(rect, 'x'),
  y: number(rect, 'y'),
  width: number(rect, 'width'),
  height: number(rect, 'height'),
});

/** The `<g class="…">` groups of the SVG: their attributes and contents. */
function groupsOfClass(svg: string, className: string) {
  return [
    ...svg.matchAll(
      new RegExp(`<g class="${className}"([^>]*)>([\\s\\S]*?)</g>`, 'g'),
    ),
  ].map((m) => ({ attributes: m[1] ?? '', body: m[2] ?? '' }));
}

const rectsIn = (body: string) =>
  [...body.matchAll(/<rect ([^>]*)\/>/g)].map((m) => boxOf(m[1] ?? ''));

/** The edges, labels, states and composites of a beautiful-mermaid SVG. */
export function diagramGeometry(svg: string): DiagramGeometry {
  const viewBox = text(/^<svg ([^>]*)>/.exec(svg)?.[1] ?? '', 'viewBox')
    .split(' ')
    .map(Number);
  const edges = [...svg.matchAll(/<polyline class="edge"([^>]*)\/>/g)].map(
    ([, attributes = '']) => {
      const points = text(attributes, 'points')
        .split(' ')
        .map((pair) => pair.split(',').map(Number) as [number, number]);
      return {
        from: text(attributes, 'data-from'),
        to: text(attributes, 'data-to'),
        segments: points.slice(1).map(([x2, y2], i) => {
          const [x1, y1] = points[i] ?? [x2, y2];
          return { x1, y1, x2, y2 };
        }),
      };
    },
  );
  const labels = groupsOfClass(svg, 'edge-label').map(
    ({ attributes, body }) => {
      const [box] = rectsIn(body);
      if (!box) throw new Error(`a label without a box: ${attributes}`);
      return {
        from: text(attributes, 'data-from'),
        to: text(attributes, 'data-to'),
        text: text(attributes, 'data-label'),
        box,
      };
    },
  );
  const nodes = groupsOfClass(svg, 'node').map(({ attributes, body }) => {
    const [rect] = rectsIn(body);
    const circles = [...body.matchAll(/<circle ([^>]*)\/>/g)].map((m) => {
      const c = m[1] ?? '';
      const r = number(c, 'r');
      return {
        x: number(c, 'cx') - r,
        y: number(c, 'cy') - r,
        width: 2 * r,
        height: 2 * r,
      };
    });
    const box = rect ?? circles[0];
    if (!box) throw new Error(`a state without a shape: ${attributes}`);
    return { id: text(attributes, 'data-id'), box };
  });
  const groups = groupsOfClass(svg, 'subgraph').map(({ attributes, body }) => {
    const [box, header] = rectsIn(body);
    if (!box || !header) throw new Error(`a composite without boxes`);
    return { id: text(attributes, 'data-id'), box, header };
  });
  return {
    size: { width: viewBox[2] ?? 0, height: viewBox[3] ?? 0 },
    edges,
    labels,
    nodes,
    groups,
  };
}

/** Whether two boxes share any point (touching counts). */
export function boxesMeet(a: Box, b: Box): boolean {
  return (
    a.x <= b.x + b.width &&
    b.x <= a.x + a.width &&
    a.y <= b.y + b.height &&
    b.y <= a.y + a.height
  );
}

/**
 * Whether a straight segment passes through a box (Liang–Barsky clipping:
 * the segment's parameter range inside each slab must overlap).
 */
export function segmentMeetsBox(s: Segment, box: Box): boolean {
  let low = 0;
  let high = 1;
  const slabs: [number, number, number, number][] = [
    [s.x1, s.x2 - s.x1, box.x, box.x + box.width],
    [s.y1, s.y2 - s.y1, box.y, box.y + box.height],
  ];
  for (const [start, delta, min, max] of slabs) {
    if (delta === 0) {
      if (start < min || start > max) return false;
      continue;
    }
    const t1 = (min - start) / delta;
    const t2 = (max - start) / delta;
    low = Math.max(low, Math.min(t1, t2));
    high = Math.min(high, Math.max(t1, t2));
    if (low > high) return false;
  }
  return true;
}

/** The four sides of a box as segments. */
function outline(box: Box): Segment[] {
  const { x, y, width: w, height: h } = box;
  return [
    { x1: x, y1: y, x2: x + w, y2: y },
    { x1: x + w, y1: y, x2: x + w, y2: y + h },
    { x1: x, y1: y + h, x2: x + w, y2: y + h },
    { x1: x, y1: y, x2: x, y2: y + h },
  ];
}

/** The clashes of one label (see {@link labelClashes}). */
function clashesOfLabel(geometry: DiagramGeometry, index: number): string[] {
  const label = geometry.labels[index];
  if (!label) return [];
  const nameOf = (l: { text: string; from: string; to: string }) =>
    `"${l.text}" (${l.from} → ${l.to})`;
  const name = nameOf(label);
  const box = {
    x: label.box.x - CLEARANCE,
    y: label.box.y - CLEARANCE,
    width: label.box.width + 2 * CLEARANCE,
    height: label.box.height + 2 * CLEARANCE,
  };
  const clashes: string[] = [];
  for (const edge of geometry.edges) {
    if (edge.from === label.from && edge.to === label.to) continue;
    if (edge.segments.some((segment) => segmentMeetsBox(segment, box))) {
      clashes.push(`${name} crosses the edge ${edge.from} → ${edge.to}`);
    }
  }
  for (const node of geometry.nodes) {
    if (boxesMeet(box, node.box)) {
      clashes.push(`${name} overlaps the state ${node.id}`);
    }
  }
  for (const group of geometry.groups) {
    if (
      boxesMeet(box, group.header) ||
      outline(group.box).some((side) => segmentMeetsBox(side, box))
    ) {
      clashes.push(`${name} crosses the border of ${group.id}`);
    }
  }
  geometry.labels.forEach((other, otherIndex) => {
    if (otherIndex !== index && boxesMeet(box, other.box)) {
      clashes.push(`${name} overlaps ${nameOf(other)}`);
    }
  });
  if (
    label.box.x < 0 ||
    label.box.y < 0 ||
    label.box.x + label.box.width > geometry.size.width ||
    label.box.y + label.box.height > geometry.size.height
  ) {
    clashes.push(`${name} sticks out of the drawing`);
  }
  return clashes;
}

/**
 * Every place where an edge label's box, with {@link CLEARANCE} around it,
 * is drawn over something else: an edge other than its own (its own line
 * runs under it by design: the label's opaque box interrupts it), a state
 * or dot, a composite's border or header, another label, or the edge of
 * the drawing. One line each, e.g.
 * `"submit" (a → b) crosses the edge c → d`; empty when the drawing is
 * clean. Two labels that overlap are reported from both sides.
 */
export function labelClashes(svg: string): string[] {
  const geometry = diagramGeometry(svg);
  return geometry.labels.flatMap((_, index) => clashesOfLabel(geometry, index));
}

/**
 * The SVG with each edge label's box widened about its centre so that its
 * text fits in a wide fallback font ({@link LABEL_WIDTH_FACTOR} × the
 * renderer's estimate of the text's width, plus its padding).
 */
export function widenLabels(svg: string): string {
  return svg.replace(
    /(<g class="edge-label"[^>]*>\s*<rect )([^>]*)\/>/g,
    (_, head: string, rect: string) => {
      const { x, width } = boxOf(rect);
      const wider =
        (width - 2 * LABEL_PADDING) * LABEL_WIDTH_FACTOR + 2 * LABEL_PADDING;
      return (
        head +
        rect
          .replace(/\bx="[^"]*"/, `x="${x - (wider - width) / 2}"`)
          .replace(/\bwidth="[^"]*"/, `width="${wider}"`) +
        '/>'
      );
    },
  );
}

/** Moves every `x`/`y` attribute inside `markup` by (dx, dy). */
function shifted(markup: string, dx: number, dy: number): string {
  return markup
    .replace(/\bx="([^"]*)"/g, (_, x: string) => `x="${Number(x) + dx}"`)
    .replace(/\by="([^"]*)"/g, (_, y: string) => `y="${Number(y) + dy}"`);
}

/** Where along a segment of its own edge a label's centre may go. */
const ALONG = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.1, 0.9];

/**
 * How far off its line a label may be moved, as a share of its half-size
 * across the line: the line still runs under the label's box, nearer one
 * side. Tried only when no centred place is clean.
 */
const ACROSS = [0, 0.7, -0.7];

/**
 * The SVG with each edge label that clashes (see {@link labelClashes})
 * moved along its own edge to the first place where it clashes with
 * nothing: centred on its line first (the edge's longest segment first,
 * its middle first), then off-centre, its line still running under it.
 * A label with no such place stays where it was, and
 * {@link labelClashes} reports it.
 */
export function placeLabels(svg: string): string {
  const geometry = diagramGeometry(svg);
  const moves = geometry.labels.map(() => ({ dx: 0, dy: 0 }));
  geometry.labels.forEach((label, index) => {
    if (clashesOfLabel(geometry, index).length === 0) return;
    const edge = geometry.edges.find(
      (e) => e.from === label.from && e.to === label.to,
    );
    if (!edge) return;
    const original = label.box;
    const length = (s: Segment) => Math.hypot(s.x2 - s.x1, s.y2 - s.y1);
    const segments = [...edge.segments].sort((a, b) => length(b) - length(a));
    const candidates = ACROSS.flatMap((across) =>
      segments.flatMap((s) =>
        ALONG.map((t) => {
          const vertical = s.x1 === s.x2;
          const x = s.x1 + (s.x2 - s.x1) * t;
          const y = s.y1 + (s.y2 - s.y1) * t;
          return {
            x:
              x -
              original.width / 2 +
              (vertical ? (across * original.width) / 2 : 0),
            y:
              y -
              original.height / 2 +
              (vertical ? 0 : (across * original.height) / 2),
          };
        }),
      ),
    );
    for (const { x, y } of candidates) {
      label.box = { ...original, x, y };
      if (clashesOfLabel(geometry, index).length === 0) {
        moves[index] = { dx: x - original.x, dy: y - original.y };
        return;
      }
    }
    label.box = original;
  });
  let index = -1;
  return svg.replace(/<g class="edge-label"[^>]*>[\s\S]*?<\/g>/g, (group) => {
    index += 1;
    const move = moves[index] ?? { dx: 0, dy: 0 };
    return move.dx === 0 && move.dy === 0
      ? group
      : shifted(group, move.dx, move.dy);
  });
}
