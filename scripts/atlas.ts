/**
 * `npm run atlas`: builds the page (the tagged test configuration of
 * harness/page/paths.ts), serves it with the local API, and writes the state
 * atlas (scripts/atlas/shoot.ts) into `atlas/` (git-ignored): open
 * `atlas/index.html`, no network needed. It pictures the sign-up page's
 * states, and `/` in each state of the site monitor, on a service of its
 * own that checks a site on 127.0.0.1 only (scripts/atlas/monitor.ts).
 *
 * Options:
 * - `--out DIR`: write the atlas there instead;
 * - `--page-screenshot FILE`: also save a PNG of the atlas page's top
 *   (1280 × 1600 CSS px), e.g. `docs/atlas-screenshot.png`;
 * - `--reflow`: also picture every state at WCAG 1.4.10's reflow widths,
 *   320 CSS px and 1280 px at 200 % zoom (about twice the time).
 *
 * Needs Chromium (harness/engines.ts says what to install if it is missing).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildAtlas, DEFAULT_WIDTHS, type Width } from './atlas/shoot';
import { launchChromium } from '../harness/engines';
import { buildTestPage } from '../harness/page/buildPage';
import { PROJECT_ROOT } from '../harness/page/paths';
import { startTestServer } from '../harness/page/testServer';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'atlas' },
    'page-screenshot': { type: 'string' },
    reflow: { type: 'boolean', default: false },
  },
});
const widths: Width[] = values.reflow
  ? [...DEFAULT_WIDTHS, 'reflow320', 'zoom200']
  : [...DEFAULT_WIDTHS];
const outDir = resolve(PROJECT_ROOT, values.out);
const started = Date.now();

buildTestPage('tagged');
const browser = await launchChromium();
const server = await startTestServer();
try {
  const manifest = await buildAtlas(browser, server.origin, outDir, {
    log: (line) => console.log(line),
    widths,
  });
  const shots = manifest.machines.reduce((n, m) => n + m.shots.length, 0);
  console.log(
    `wrote ${resolve(outDir, 'index.html')}: ${shots} states pictured at ${widths.length} widths, in the light and the dark scheme, in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  const pageShot = values['page-screenshot'];
  if (pageShot) {
    const page = await browser.newPage({
      viewport: { width: 1280, height: 1600 },
    });
    await page.goto(pathToFileURL(resolve(outDir, 'index.html')).href);
    await page.waitForLoadState('load');
    await page.screenshot({ path: resolve(PROJECT_ROOT, pageShot) });
    console.log(`wrote ${pageShot}`);
  }
} finally {
  await Promise.all([browser.close(), server.close()]);
}
