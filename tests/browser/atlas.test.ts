/**
 * The state atlas (`npm run atlas`, scripts/atlas/) built into a temporary
 * directory from the page the browser project built: every state node of
 * both machines, read from the machines themselves, has a picture at the
 * phone and at the desktop width, and so has each failure kind; the page
 * links each diagram state to its pictures and fetches nothing from the
 * network.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyStateNode } from 'xstate';
import { DIAGRAMS } from '../../scripts/diagramFiles';
import { eventLabel, stateNodesOf } from '../../scripts/mermaid';
import { MODEL_FAILURES } from '../../scripts/model/signUpModel';
import {
  buildAtlas,
  WIDTHS,
  type AtlasManifest,
  type Width,
} from '../../scripts/atlas/shoot';
import { useChromiumAndServer } from './support/browserSuite';

const suite = useChromiumAndServer();
const outDir = mkdtempSync(join(tmpdir(), 'vigil-atlas-'));
let manifest: AtlasManifest;
let html: string;

beforeAll(async () => {
  const started = Date.now();
  manifest = await buildAtlas(suite.browser, suite.server.origin, outDir);
  html = readFileSync(join(outDir, 'index.html'), 'utf8');
  const shots = manifest.machines.flatMap((m) => m.shots).length;
  console.log(
    `atlas: ${shots} pictures at 2 widths in ${((Date.now() - started) / 1000).toFixed(0)} s`,
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

/** Left by an unguarded eventless transition: never on screen. */
const isMomentary = (node: AnyStateNode) =>
  (node.always ?? []).some((transition) => !transition.guard);

describe.each(DIAGRAMS)('the atlas of $name', ({ machine }) => {
  const shotsOf = () =>
    manifest.machines.find((m) => m.machineId === machine.id)?.shots ?? [];

  it.each(stateNodesOf(machine).map((node) => [node.id, node] as const))(
    '%s has a picture at each width',
    (_, node) => {
      const shots = shotsOf().filter((shot) => shot.nodes.includes(node.id));
      expect(shots.length, `no picture of ${node.id}`).toBeGreaterThan(0);
      for (const shot of shots) {
        for (const width of Object.keys(WIDTHS) as Width[]) {
          const file = join(outDir, shot.files[width]);
          expect(existsSync(file), `${shot.files[width]} is missing`).toBe(
            true,
          );
          const size = pngSize(file);
          expect(size.width).toBe(WIDTHS[width].width);
          expect(size.height).toBeGreaterThanOrEqual(WIDTHS[width].height);
          // A blank page compresses to a few kB; the page is richer.
          expect(readFileSync(file).length).toBeGreaterThan(20_000);
        }
      }
      expect(html).toContain(`<article class="state" id="${node.id}">`);
      // The diagram's state links to it.
      expect(html).toContain(`<a href="#${node.id}"><title>`);
    },
  );

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

describe('the atlas page', () => {
  it('pictures each failure kind', () => {
    const failures = manifest.machines
      .flatMap((m) => m.shots)
      .filter((shot) => shot.stateId === 'signUp.failure')
      .map((shot) => shot.variant);
    const kinds = [...new Set(MODEL_FAILURES.map((failure) => failure.kind))];
    expect(failures.sort()).toEqual(kinds.sort());
  });

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
