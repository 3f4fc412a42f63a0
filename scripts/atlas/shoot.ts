/**
 * Builds the state atlas into a directory: a picture of every state of both
 * machines at a phone and a desktop width (and, on request, at WCAG 1.4.10's
 * reflow widths), in the light and the dark scheme, and in forced colours for {@link FORCED_COLOURS_SHOTS}, taken in
 * Chromium on the built page along the planned model paths
 * (scripts/atlas/plan.ts), a manifest of them, and the page that shows
 * them beside the machines' diagrams (scripts/atlas/html.ts). Nothing on
 * the page fetches from the network.
 *
 * The schemes are switched on the page that shows the state (Playwright's
 * `emulateMedia`), so they cost a picture each and no replay of the path
 * (ADR-0053).
 *
 * {@link auditEveryState} plays the same runs without pictures, to run a
 * check (axe-core, in the tests) on every state in the dark scheme.
 *
 * Layout of `outDir`:
 * - `index.html`: the atlas;
 * - `shots/<shot id>.<width>[.dark|.forced].png`: the pictures
 *   (the whole page, or the viewport while a modal dialog shows);
 * - `diagrams/<name>.svg`: the diagrams at full size;
 * - `atlas.json`: the {@link AtlasManifest}.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { diagramMermaid, renderSvg } from '../docs/diagramFiles';
import { RECAPTCHA_SCRIPT_PATTERN } from '../../harness/page/fakeRecaptcha';
import { TEST_TAG_URL } from '../../harness/page/paths';
import { openSignUpPage } from '../../harness/page/signUpPage';
import { MONITOR_STATES, monitorMachine } from '../../machines/monitorMachine';
import { consentDriver, signUpDriver, type PageDriver } from './drivers';
import { atlasHtml, type AtlasDiagram } from './html';
import {
  WIDTHS,
  type Appearance,
  type AtlasManifest,
  type ShotRecord,
  type Width,
} from './manifest';
import { consentAtlas, signUpAtlas } from './machines';
import { MONITOR_FROM, playMonitorStates } from './monitor';
import {
  planRuns,
  reachOf,
  shotsOf,
  type AtlasMachine,
  type Run,
  type Shot,
} from './plan';

export { WIDTHS };
export type { Appearance, AtlasManifest, ShotRecord, Width };

/** The widths pictured unless asked otherwise. */
export const DEFAULT_WIDTHS: readonly Width[] = ['phone', 'desktop'];

/**
 * The shots also pictured in forced colours: the form, the form with its
 * errors, and the consent dialog (ADR-0053), and `/` in each state of the site
 * monitor (issue 45: its chart must read in forced colours).
 */
export const FORCED_COLOURS_SHOTS: readonly string[] = [
  'signUp.idle',
  'signUp.idle--errors-shown',
  'consent.unset.open',
  ...MONITOR_STATES.map((state) => `monitor.${state}`),
];

/**
 * Checks the page as it is shown (axe-core in
 * tests/browser/appearance.test.ts), returning one line per problem found;
 * run by {@link auditEveryState} on each shot at each width in the dark
 * scheme.
 */
export type Audit = (page: Page) => Promise<string[]>;

interface Entry<TInput> {
  atlas: AtlasMachine<TInput>;
  driver: PageDriver<TInput>;
}

const isLocal = (url: URL) =>
  url.hostname === 'localhost' || url.hostname === '127.0.0.1';

/**
 * Nothing leaves the machine: requests to other hosts (error reports, say)
 * fail, except Google's reCAPTCHA script and the tag, which the fakes of
 * harness/page answer (registered by `openSignUpPage`).
 */
async function offline(page: Page) {
  await page.context().route(
    (url) =>
      !isLocal(url) &&
      url.href !== TEST_TAG_URL &&
      !RECAPTCHA_SCRIPT_PATTERN.test(url.href),
    (route) => route.abort('internetdisconnected'),
  );
}

/**
 * Saves the whole page, or only the viewport while a modal dialog shows:
 * the dialog is pinned to the viewport, and a whole-page picture would
 * stretch or misplace it.
 */
async function save(page: Page, outDir: string, file: string) {
  const modal = await page
    .locator('[role="dialog"][aria-modal="true"]')
    .count();
  await page.screenshot({
    path: join(outDir, file),
    fullPage: modal === 0,
    animations: 'disabled',
    caret: 'hide',
  });
}

const fileOf = (
  shot: { id: string },
  width: Width,
  appearance: Appearance = 'light',
) =>
  `shots/${shot.id}.${width}${appearance === 'light' ? '' : `.${appearance}`}.png`;

/** A shot's files in one appearance, by width. */
const filesOf = (
  widths: readonly Width[],
  shot: { id: string },
  appearance?: Appearance,
): Partial<Record<Width, string>> =>
  Object.fromEntries(
    widths.map((width) => [width, fileOf(shot, width, appearance)]),
  );

/** What a build of the atlas passes down to each picture. */
interface Session {
  outDir: string;
  widths: readonly Width[];
  /** Which of the planned runs are played ({@link AtlasOptions.plan}). */
  plan: 'full' | 'small';
  /** False when the states are only audited ({@link auditEveryState}). */
  pictures: boolean;
  audit: Audit | undefined;
  /** What the audit found, by shot id, `<width>: <line>`. */
  audited: Map<string, string[]>;
}

/**
 * The widths a run is played at: each one for pictures; for an audit
 * alone, the first, and `saveAppearances` resizes the page to the others.
 */
const playedWidths = (session: Session) =>
  session.pictures ? session.widths : session.widths.slice(0, 1);

/**
 * Saves the shot in each of its appearances, the dark one audited: the
 * media features are switched on the page as it shows the state, then
 * set back to the light scheme. Without pictures, only the audit runs.
 */
async function saveAppearances(
  page: Page,
  session: Session,
  shot: { id: string },
  width: Width,
) {
  const { outDir, audit, pictures } = session;
  if (pictures) {
    await save(page, outDir, fileOf(shot, width));
    await page.emulateMedia({ colorScheme: 'dark' });
    // After the picture: its `animations: 'disabled'` ends the colours'
    // transitions, which axe would otherwise measure half-way.
    await save(page, outDir, fileOf(shot, width, 'dark'));
  } else {
    // With reduced motion the page switches schemes without a transition
    // (tests/browser/appearance.test.ts), so axe measures the end colours.
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
  }
  if (audit) {
    // Pictures come from a visit at each width; an audit alone resizes the
    // page it has to each width, which halves the replays.
    const audited = pictures ? [width] : session.widths;
    for (const at of audited) {
      if (at !== width) await page.setViewportSize(WIDTHS[at]);
      const found = (await audit(page)).map((line) => `${at}: ${line}`);
      session.audited.set(shot.id, [
        ...(session.audited.get(shot.id) ?? []),
        ...found,
      ]);
    }
    if (audited.some((at) => at !== width)) {
      await page.setViewportSize(WIDTHS[width]);
    }
  }
  if (pictures && FORCED_COLOURS_SHOTS.includes(shot.id)) {
    await page.emulateMedia({ colorScheme: 'light', forcedColors: 'active' });
    await save(page, outDir, fileOf(shot, width, 'forced'));
  }
  await page.emulateMedia({
    colorScheme: 'light',
    forcedColors: 'none',
    reducedMotion: 'no-preference',
  });
}

/**
 * The page as first drawn, before its script starts the machines (the
 * frame of a momentary first state): the script files are answered empty,
 * so the prerendered markup stays as it is (the inline script runs,
 * as it does before the bundle arrives). Not with scripts turned off: that
 * shows the page's notice for browsers without JavaScript.
 */
async function shootPrerender(
  browser: Browser,
  origin: string,
  session: Session,
  shot: { id: string },
  query: string,
) {
  for (const width of playedWidths(session)) {
    const context = await browser.newContext({ viewport: WIDTHS[width] });
    try {
      const page = await context.newPage();
      await offline(page);
      await page.route(
        (url) => url.origin === origin && url.pathname.endsWith('.js'),
        (route) => route.fulfill({ contentType: 'text/javascript', body: '' }),
      );
      await page.goto(`${origin}/signup${query}`);
      await saveAppearances(page, session, shot, width);
    } finally {
      await context.close();
    }
  }
}

/** Plays one run at one width, picturing each of its shots on the way. */
async function playRun<TInput>(
  browser: Browser,
  origin: string,
  session: Session,
  { driver }: Entry<TInput>,
  run: Run<TInput>,
  width: Width,
) {
  const visit = driver.visit(run.input);
  const opened = await openSignUpPage(browser, origin, {
    ...visit,
    viewport: WIDTHS[width],
  });
  try {
    const { page } = opened;
    await offline(page);
    await driver.prepare(page, origin);
    const live = run.shots.filter((shot) => shot.moment !== 'prerender');
    for (let step = 0; step <= run.events.length; step += 1) {
      if (step > 0) {
        const event = run.events[step - 1];
        if (event) await driver.perform(page, event);
      }
      const here = live.filter((shot) => shot.playedBefore === step);
      if (here.length === 0) continue;
      await driver.shows(page, run.input, run.events.slice(0, step));
      for (const shot of here) {
        await saveAppearances(page, session, shot, width);
      }
    }
    if (opened.pageErrors.length > 0) {
      throw new Error(`the page threw: ${opened.pageErrors.join('; ')}`);
    }
  } finally {
    await opened.context.close();
  }
}

/** The small plan's one run: the first with a forced-colours shot. */
function smallPlan<TInput>(runs: Run<TInput>[]): Run<TInput>[] {
  const run =
    runs.find((r) =>
      r.shots.some((s) => FORCED_COLOURS_SHOTS.includes(s.id)),
    ) ?? runs[0];
  return run ? [run] : [];
}

async function shootMachine<TInput>(
  browser: Browser,
  origin: string,
  session: Session,
  entry: Entry<TInput>,
  log: (line: string) => void,
) {
  const planned = planRuns(entry.atlas);
  const runs = session.plan === 'full' ? planned : smallPlan(planned);
  for (const run of runs) {
    for (const width of playedWidths(session)) {
      await playRun(browser, origin, session, entry, run, width);
    }
    for (const shot of run.shots.filter((s) => s.moment === 'prerender')) {
      await shootPrerender(
        browser,
        origin,
        session,
        shot,
        entry.driver.visit(run.input).query ?? '',
      );
    }
    const events = run.events.length;
    log(
      `${entry.atlas.name}: ${run.shots.map((s) => s.id).join(', ')} (a path of ${events} event${events === 1 ? '' : 's'})`,
    );
  }
  return shotsOf(entry.atlas, runs).map((shot: Shot<TInput>): ShotRecord => ({
    id: shot.id,
    stateId: shot.stateId,
    variant: shot.variant ?? null,
    moment: shot.moment,
    nodes: shot.nodes,
    tags: shot.tags,
    accepts: shot.accepts,
    leadsTo: shot.leadsTo,
    ...reachOf(entry.atlas, shot),
    files: {
      light: filesOf(session.widths, shot),
      dark: filesOf(session.widths, shot, 'dark'),
      ...(FORCED_COLOURS_SHOTS.includes(shot.id) && {
        forced: filesOf(session.widths, shot, 'forced'),
      }),
    },
  }));
}

/** One machine's part of the atlas, its input type hidden. */
function job<TInput>(entry: Entry<TInput>) {
  return {
    name: entry.atlas.name,
    machine: entry.atlas.model.machine,
    shoot: (
      browser: Browser,
      origin: string,
      session: Session,
      log: (line: string) => void,
    ) => shootMachine(browser, origin, session, entry, log),
  };
}

/** How {@link buildAtlas} builds the atlas. */
export interface AtlasOptions {
  /** Receives one line per browser run. */
  log?: (line: string) => void;
  /** The widths to picture ({@link WIDTHS}), in the order shown. */
  widths?: readonly Width[];
  /**
   * `full` (the default): every planned run, so every state; `small`: one
   * run of each machine, the first that pictures a forced-colours shot
   * (else its first), enough to check the generator (npm test).
   */
  plan?: 'full' | 'small';
}

/**
 * The site monitor's states on `/` (scripts/atlas/monitor.ts): on a
 * service of its own, in one visit, each state pictured at each width by
 * resizing the page, which the server renders without script. The same in
 * both plans: four states, one sign-up.
 */
async function shootMonitor(
  browser: Browser,
  session: Session,
  log: (line: string) => void,
): Promise<ShotRecord[]> {
  const started = Date.now();
  const stops = await playMonitorStates(browser, {
    prepare: offline,
    picture: async (page, stop) => {
      for (const width of session.widths) {
        await page.setViewportSize(WIDTHS[width]);
        await saveAppearances(page, session, { id: stop.stateId }, width);
      }
    },
  });
  log(
    `monitorMachine: ${stops.map((stop) => stop.stateId).join(', ')} (on /, one sign-up and its checks, ${((Date.now() - started) / 1000).toFixed(0)} s)`,
  );
  return stops.map((stop): ShotRecord => {
    const shot = { id: stop.stateId };
    return {
      id: shot.id,
      stateId: stop.stateId,
      variant: null,
      moment: 'during',
      nodes: [stop.stateId],
      tags: stop.tags,
      accepts: stop.accepts,
      leadsTo: [],
      from: MONITOR_FROM,
      events: stop.events,
      files: {
        light: filesOf(session.widths, shot),
        dark: filesOf(session.widths, shot, 'dark'),
        forced: filesOf(session.widths, shot, 'forced'),
      },
    };
  });
}

/** The two machines' entries, in the order the atlas shows them. */
const JOBS = () => [
  job({ atlas: signUpAtlas(), driver: signUpDriver }),
  job({ atlas: consentAtlas(), driver: consentDriver }),
];

/**
 * Writes the atlas into `outDir` (emptied first).
 *
 * @param browser Chromium (harness/engines.ts `launchChromium`)
 * @param origin where the built page is served with its API
 *   (harness/page/testServer.ts), e.g. `http://localhost:43123`
 * @throws Error when the page does not show a state the model calls for
 */
export async function buildAtlas(
  browser: Browser,
  origin: string,
  outDir: string,
  { log = () => {}, widths = DEFAULT_WIDTHS, plan = 'full' }: AtlasOptions = {},
): Promise<AtlasManifest> {
  const session: Session = {
    outDir,
    widths,
    plan,
    pictures: true,
    audit: undefined,
    audited: new Map(),
  };
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, 'shots'), { recursive: true });
  mkdirSync(join(outDir, 'diagrams'), { recursive: true });
  const jobs = JOBS();
  const manifest: AtlasManifest = { widths: [...widths], machines: [] };
  const diagrams: AtlasDiagram[] = [];
  for (const { name, machine, shoot } of jobs) {
    const shots = await shoot(browser, origin, session, log);
    manifest.machines.push({ name, machineId: machine.id, shots });
    const svg = renderSvg(diagramMermaid(machine));
    writeFileSync(join(outDir, 'diagrams', `${name}.svg`), svg);
    diagrams.push({ name, machine, svg });
  }
  // The service's machine last: its states are `/`'s, not the form's.
  const monitorShots = await shootMonitor(browser, session, log);
  manifest.machines.push({
    name: 'monitorMachine',
    machineId: monitorMachine.id,
    shots: monitorShots,
  });
  const monitorSvg = renderSvg(diagramMermaid(monitorMachine));
  writeFileSync(join(outDir, 'diagrams', 'monitorMachine.svg'), monitorSvg);
  diagrams.push({
    name: 'monitorMachine',
    machine: monitorMachine,
    svg: monitorSvg,
    about:
      'The site monitor’s machine runs in the service. Its states are pictured on <code>/</code>, the account page, as the service renders it (without script), along one site’s checks: a sign-up, the first check, a day of hourly checks, then two failures in a row.',
  });
  writeFileSync(
    join(outDir, 'atlas.json'),
    JSON.stringify(manifest, null, 2) + '\n',
  );
  writeFileSync(join(outDir, 'index.html'), atlasHtml(manifest, diagrams));
  return manifest;
}

/**
 * Plays every planned run of both machines, as the full atlas does, and
 * runs `audit` on each state at each width in the dark scheme (with
 * reduced motion, so no colour is caught mid-transition), taking no
 * picture: issue 22's check of every state, without building the atlas.
 *
 * @returns the shots audited (their files are not written), and what the
 *   audit found, one `<shot id> <width>: <line>` each
 * @throws Error when the page does not show a state the model calls for
 */
export async function auditEveryState(
  browser: Browser,
  origin: string,
  audit: Audit,
  widths: readonly Width[] = DEFAULT_WIDTHS,
): Promise<{ shots: ShotRecord[]; found: string[] }> {
  const session: Session = {
    outDir: '',
    widths,
    plan: 'full',
    pictures: false,
    audit,
    audited: new Map(),
  };
  const shots: ShotRecord[] = [];
  for (const { shoot } of JOBS()) {
    shots.push(...(await shoot(browser, origin, session, () => {})));
  }
  const found = shots.flatMap(({ id }) =>
    (session.audited.get(id) ?? ['not audited']).map((line) => `${id} ${line}`),
  );
  return { shots, found };
}
