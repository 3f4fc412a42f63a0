/**
 * `npm run bench:tests [-- --runs 5] [-- --engines chromium,firefox]`: what
 * a browser test pays before it drives anything, per engine
 * (docs/testing.md, "What a browser test costs"). For each engine it times,
 * median of `--runs` rounds:
 *
 * - **a browser per test**: start the engine, open a page, load a blank
 *   page from the tests' server, close the engine (what a test would pay
 *   with a process of its own);
 * - **a clean page per test**: in one running engine, a page with no
 *   cookies and no storage from earlier tests (a browser context in
 *   Chromium, a user context in Firefox over WebDriver BiDi, WebKit's one
 *   session cleared), the same blank page, closed (what the tests pay);
 * - **the sign-up page ready**: the same clean page opened on `/signup`
 *   until the (fake) captcha is mounted, as every browser test begins
 *   (tests/browser/support/engines/visit.ts `openSignUpPage`, whose wait
 *   is vitest's `expect.poll`: here a plain poll, outside vitest).
 *
 * It uses the tests' own support: the proxy (mockttp), the engines'
 * adapters and the test server with the test build, which a browser test
 * run builds first (`dist-test/`). Timings vary with the machine: this
 * prints figures and their ratio, and asserts nothing.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ENGINES, type Engine } from '../../../harness/engines';
import { launchEngine } from './engines/launch';
import { startNetworkEdge } from './engines/network';
import type { EngineBrowser } from './engines/browser';
import { DESKTOP } from '../../../harness/page/signUpPage';
import { startTestServer } from '../../../harness/page/testServer';
import { TEST_BUILDS } from '../../../harness/page/paths';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    engines: { type: 'string', default: ENGINES.join(',') },
  },
});
const runs = Math.max(1, Number(values.runs));
const engines = values.engines
  .split(',')
  .filter((name): name is Engine =>
    (ENGINES as readonly string[]).includes(name),
  );

const TEST_BUILD_DIR = TEST_BUILDS.tagged.distDir;
if (!existsSync(TEST_BUILD_DIR)) {
  console.error(
    `No test build in ${TEST_BUILD_DIR}: run a browser test once (npm run test:browser) first.`,
  );
  process.exit(1);
}

/** Opens `/signup` in a clean page and waits for the fake captcha. */
async function openReadySignUpPage(browser: EngineBrowser, origin: string) {
  const page = await browser.newPage(DESKTOP);
  await page.goto(`${origin}/signup`);
  for (let poll = 0; poll < 200; poll += 1) {
    const ready = await page.evaluate(
      () => document.querySelector('[data-testid="fake-captcha"]') !== null,
    );
    if (ready) return page;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the sign-up page was not ready within 10 s');
}

/** Milliseconds one call of `body` takes, median of {@link runs}. */
async function median(body: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    await body();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

const network = await startNetworkEdge();
const server = await startTestServer();
const blank = `${server.origin}/healthz`;
const lines: string[] = [];
try {
  for (const engine of engines) {
    const perBrowser = await median(async () => {
      const browser = await launchEngine(engine, network.port);
      try {
        const page = await browser.newPage(DESKTOP);
        await page.goto(blank);
        await page.close();
      } finally {
        await browser.close();
      }
    });
    const browser = await launchEngine(engine, network.port);
    try {
      // The first page warms the engine up, as a file's first test does.
      const first = await browser.newPage(DESKTOP);
      await first.goto(blank);
      await first.close();
      const perPage = await median(async () => {
        const page = await browser.newPage(DESKTOP);
        await page.goto(blank);
        await page.close();
      });
      const ready = await median(async () => {
        const page = await openReadySignUpPage(browser, server.origin);
        await page.close();
      });
      lines.push(
        `  ${engine.padEnd(8)} a browser per test ${perBrowser.toFixed(0).padStart(5)} ms, a clean page per test ${perPage.toFixed(0).padStart(4)} ms (${(perBrowser / perPage).toFixed(1)}× less); the sign-up page ready ${ready.toFixed(0).padStart(5)} ms`,
      );
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
  await network.stop();
}
console.log(
  `What a browser test pays before it drives the page (median of ${runs}):\n${lines.join('\n')}`,
);
