/**
 * The state atlas's generator (`npm run atlas`, scripts/atlas/) on its
 * small plan, built into a temporary directory from the page the browser
 * project built: one planned run of each machine, the first with a
 * forced-colours shot (scripts/atlas/shoot.ts). Each state it
 * reaches has a picture at the phone and at the desktop width, in the
 * light and the dark scheme, with its tags, events and path; the form, its
 * errors and the consent dialog are pictured in forced colours too where
 * the plan reaches them; `/` is pictured in every state of the site
 * monitor's machine (pending, up, suspect, down), in the light and the
 * dark scheme and in forced colours, at both widths, in both plans; the
 * page links each diagram state it pictures to its pictures and fetches
 * nothing from the network. That the full plan
 * reaches every state node and every failure kind is
 * tests/machines/atlasPlan.test.ts's; axe-core's check of every state in
 * the dark scheme is tests/browser/darkAudit.test.ts's. The sweeps of every
 * state run in `npm run test:engines` (ADR-0086).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyStateNode } from 'xstate';
import { monitorMachine } from '../../machines/monitorMachine';
import { PAGE_DIAGRAMS } from '../../scripts/docs/diagramFiles';
import { eventLabel, stateNodesOf } from '../../scripts/docs/mermaid';
import {
  buildAtlas,
  DEFAULT_WIDTHS,
  FORCED_COLOURS_SHOTS,
  WIDTHS,
  type AtlasManifest,
  type ShotRecord,
  type Width,
} from '../../scripts/atlas/shoot';
import { useChromiumAndServer } from './support/browserSuite';

const suite = useChromiumAndServer();
const outDir = mkdtempSync(join(tmpdir(), 'vigil-atlas-'));
let manifest: AtlasManifest;
let html: string;

beforeAll(async () => {
  const started = Date.now();
  manifest = await buildAtlas(suite.browser, suite.server.origin, outDir, {
    plan: 'small',
  });
  html = readFileSync(join(outDir, 'index.html'), 'utf8');
  const shots = manifest.machines.flatMap((m) => m.shots).length;
  console.log(
    `atlas, small plan: ${shots} states pictured at 2 widths in the light and the dark scheme, in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}, 300_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** Width and height from a PNG's IHDR chunk; throws if it is not a PNG. */
function pngSize(path: string): { width: number; height: number } {
  const bytes = readFileSync(path);
  const signature = '89504e470d0a1a0a';
  if (bytes.subarray(0, 8).toString('hex') !== signature) {
    throw new Error(`${path} is not a PNG`);
  }
  if (bytes.subarray(12, 16).toString('latin1') !== 'IHDR') {
    throw new Error(`${path} has no IHDR chunk`);
  }
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/**
 * The relative luminance (WCAG 2.2) of the pixel 4 px in from the top-left
 * corner of each PNG: the page's canvas, outside every box. Read by
 * Chromium from the files' bytes.
 */
async function cornerLuminance(files: string[]): Promise<number[]> {
  const page = await suite.browser.newPage();
  try {
    const sources = files.map(
      (file) =>
        `data:image/png;base64,${readFileSync(file).toString('base64')}`,
    );
    return await page.evaluate(async (urls) => {
      const linear = (v: number) => {
        const c = v / 255;
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      const results: number[] = [];
      for (const url of urls) {
        const image = new Image();
        image.src = url;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = 8;
        canvas.height = 8;
        const context = canvas.getContext('2d');
        if (!context) throw new Error('no 2D canvas');
        context.drawImage(image, 0, 0);
        const [r = 0, g = 0, b = 0] = context.getImageData(4, 4, 1, 1).data;
        results.push(
          0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b),
        );
      }
      return results;
    }, sources);
  } finally {
    await page.close();
  }
}

/** Left by an unguarded eventless transition: never on screen. */
const isMomentary = (node: AnyStateNode) =>
  (node.always ?? []).some((transition) => !transition.guard);

describe.each(PAGE_DIAGRAMS)('the atlas of $name', ({ machine }) => {
  const shotsOf = () =>
    manifest.machines.find((m) => m.machineId === machine.id)?.shots ?? [];

  it('pictures each state its small plan reaches at each width, in the light and the dark scheme', () => {
    const pictured = stateNodesOf(machine).filter((node) =>
      shotsOf().some((shot) => shot.nodes.includes(node.id)),
    );
    // The first run reaches more than its start.
    expect(pictured.length).toBeGreaterThan(1);
    for (const node of pictured) {
      const shots = shotsOf().filter((shot) => shot.nodes.includes(node.id));
      for (const shot of shots) {
        for (const width of manifest.widths) {
          for (const files of [shot.files.light, shot.files.dark]) {
            const file = join(outDir, files[width] ?? '');
            expect(existsSync(file), `${files[width]} is missing`).toBe(true);
            const size = pngSize(file);
            expect(size.width).toBe(WIDTHS[width].width);
            expect(size.height).toBeGreaterThanOrEqual(WIDTHS[width].height);
            // A blank page compresses to a few kB; the page is richer.
            expect(readFileSync(file).length).toBeGreaterThan(20_000);
          }
        }
      }
      expect(html).toContain(`<article class="state" id="${node.id}">`);
      // The diagram's state links to it.
      expect(html).toContain(`<a href="#${node.id}"><title>`);
    }
  });

  it('says which pictures are of momentary states', () => {
    for (const node of stateNodesOf(machine)) {
      for (const shot of shotsOf().filter((s) => s.stateId === node.id)) {
        expect(shot.moment !== 'during', shot.id).toBe(isMomentary(node));
      }
    }
  });

  it('gives each picture its tags, the events it accepts and its path', () => {
    for (const shot of shotsOf()) {
      const node = machine.getStateNodeById(shot.stateId);
      expect(shot.tags).toEqual(expect.arrayContaining([...node.tags]));
      // What the state and its ancestors handle, as the diagram names it.
      const handled = shot.nodes
        .map((id) => machine.getStateNodeById(id))
        .flatMap((n) => n.ownEvents.map(eventLabel));
      expect(new Set(shot.accepts)).toEqual(new Set(handled));
      for (const event of shot.events) expect(html).toContain(event);
    }
  });
});

describe('the atlas of monitorMachine, on /', () => {
  const shotsOf = () =>
    manifest.machines.find((m) => m.machineId === monitorMachine.id)?.shots ??
    [];

  it('pictures / in every state of the site monitor at each width, in the light and the dark scheme and forced colours', () => {
    const nodes = stateNodesOf(monitorMachine);
    expect(nodes.map((node) => node.id).sort()).toEqual([
      'monitor.down',
      'monitor.pending',
      'monitor.suspect',
      'monitor.up',
    ]);
    for (const node of nodes) {
      const shots = shotsOf().filter((shot) => shot.stateId === node.id);
      expect(shots, node.id).toHaveLength(1);
      for (const shot of shots) {
        for (const width of manifest.widths) {
          for (const files of [
            shot.files.light,
            shot.files.dark,
            shot.files.forced ?? {},
          ]) {
            const name = files[width] ?? '';
            const file = join(outDir, name);
            expect(existsSync(file), `${name} is missing`).toBe(true);
            const size = pngSize(file);
            expect(size.width).toBe(WIDTHS[width].width);
            expect(size.height).toBeGreaterThanOrEqual(WIDTHS[width].height);
            expect(readFileSync(file).length).toBeGreaterThan(20_000);
            expect(html).toContain(`src="${name}"`);
          }
        }
      }
      expect(html).toContain(`<article class="state" id="${node.id}">`);
      expect(html).toContain(`<a href="#${node.id}"><title>`);
    }
  });

  it('gives each picture its tags, the events it accepts and the checks that reached it', () => {
    const shots = shotsOf();
    for (const shot of shots) {
      const node = monitorMachine.getStateNodeById(shot.stateId);
      expect(shot.tags).toEqual([...node.tags].sort());
      expect(new Set(shot.accepts)).toEqual(
        new Set(node.ownEvents.map(eventLabel)),
      );
      for (const event of shot.events) expect(html).toContain(event);
    }
    // Pending before any check; each later state after more checks.
    const reached = (state: string) =>
      shots.find((shot) => shot.stateId === `monitor.${state}`)?.events ?? [];
    expect(reached('pending')).toEqual([]);
    expect(reached('up').length).toBeGreaterThan(0);
    expect(reached('suspect').length).toBeGreaterThan(reached('up').length);
    expect(reached('down').length).toBeGreaterThan(reached('suspect').length);
  });
});

describe('the atlas in every appearance', () => {
  const allShots = (): ShotRecord[] =>
    manifest.machines.flatMap((m) => m.shots);
  const widths: readonly Width[] = DEFAULT_WIDTHS;

  it('pictures the default widths, the phone and the desktop', () => {
    expect(manifest.widths).toEqual(['phone', 'desktop']);
  });

  it('the dark pictures show a dark page, the light ones a light page', async () => {
    const shots = allShots();
    const dark = await cornerLuminance(
      shots.flatMap((s) =>
        widths.map((w) => join(outDir, s.files.dark[w] ?? '')),
      ),
    );
    const light = await cornerLuminance(
      shots.flatMap((s) =>
        widths.map((w) => join(outDir, s.files.light[w] ?? '')),
      ),
    );
    expect(dark).toHaveLength(shots.length * widths.length);
    // The canvas: #0b1120 (under the dialog's backdrop, darker still).
    for (const value of dark) expect(value).toBeLessThan(0.02);
    // #f1f5f9, or under the backdrop, a mid grey.
    for (const value of light) expect(value).toBeGreaterThan(0.15);
  });

  it('pictures the form, its errors, the consent dialog and / in each monitor state in forced colours, at each width', () => {
    const forced = allShots().filter((shot) => shot.files.forced);
    const reached = allShots()
      .map((shot) => shot.id)
      .filter((id) => FORCED_COLOURS_SHOTS.includes(id));
    expect(reached.length).toBeGreaterThan(0);
    expect(forced.map((shot) => shot.id).sort()).toEqual(reached.sort());
    for (const shot of forced) {
      for (const width of widths) {
        const name = shot.files.forced?.[width] ?? '';
        const file = join(outDir, name);
        expect(existsSync(file), `${name} is missing`).toBe(true);
        expect(pngSize(file).width).toBe(WIDTHS[width].width);
        expect(readFileSync(file).length).toBeGreaterThan(20_000);
        expect(html).toContain(`src="${name}"`);
      }
    }
  });
});

describe('the atlas page', () => {
  it('needs no network: every picture is a file beside it', () => {
    const sources = [...html.matchAll(/\b(?:src|href)="([^"#][^"]*)"/g)].map(
      (m) => m[1] ?? '',
    );
    expect(sources.length).toBeGreaterThan(30);
    for (const source of sources) {
      expect(source).not.toMatch(/^[a-z]+:/i);
      expect(existsSync(join(outDir, source)), source).toBe(true);
    }
  });
});
