/**
 * A visit to the sign-up page in any engine (tests/browser/engines.test.ts):
 * opening it through the tests' proxy, waiting for what the page shows,
 * and axe-core's WCAG 2.2 AA check, injected as axe-core's own script.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { AxeResults } from 'axe-core';
import { expect } from 'vitest';
import { GPC_HEADER, GPC_INIT_SCRIPT } from '../../../../harness/page/gpc';
import {
  PROJECT_ROOT,
  TEST_CONSENT_REVISION,
} from '../../../../harness/page/paths';
import { DESKTOP, type OpenOptions } from '../../../../harness/page/signUpPage';
import type { EnginePage } from './browser';
import type { EngineSuite } from './launch';

/** Where the engines' screenshots go. */
const SCREENSHOTS = resolve(PROJECT_ROOT, 'test-results/engines');

/**
 * The same visits as the Chromium-only tests' (harness/page/
 * signUpPage.ts); here Global Privacy Control is sent through the tests'
 * proxy, the same in every engine.
 */
export type VisitOptions = OpenOptions;

/**
 * Opens `/signup` on `origin` in a fresh page of the suite's engine, with
 * the proxy's record of sign-ups and tag requests cleared, and waits for
 * the (fake) captcha: the page is then ready for a visitor.
 */
export async function openSignUpPage(
  suite: EngineSuite,
  origin: string,
  {
    query = '',
    viewport = DESKTOP,
    storedConsent,
    storedRevision = String(TEST_CONSENT_REVISION),
    gpc,
  }: VisitOptions = {},
): Promise<EnginePage> {
  suite.network.reset();
  if (gpc === 'property') suite.network.addInitScript(GPC_INIT_SCRIPT);
  if (gpc === 'header') {
    suite.network.addRequestHeader(GPC_HEADER.name, GPC_HEADER.value);
  }
  const page = await suite.browser.newPage(viewport);
  try {
    if (storedConsent !== undefined) {
      // A choice stored on an earlier visit to the site.
      await page.goto(`${origin}/`);
      await page.setCookie('Vigil_COOKIE_CONSENT', storedConsent);
      if (storedRevision !== null) {
        await page.setCookie('Vigil_CONSENT_REVISION', storedRevision);
      }
    }
    await page.goto(`${origin}/signup${query}`);
    await waitFor(
      page,
      () => document.querySelector('[data-testid="fake-captcha"]') !== null,
    );
    return page;
  } catch (error) {
    await page.close();
    throw error;
  }
}

/**
 * Polls a self-contained check in the page, given `args`, until it holds
 * (10 s at most).
 */
export async function waitFor<A extends unknown[]>(
  page: EnginePage,
  check: (...args: A) => boolean,
  ...args: A
): Promise<void> {
  await expect
    .poll(() => page.evaluate(check, ...args), { timeout: 10_000 })
    .toBe(true);
}

/**
 * Saves `test-results/engines/<engine>-<name>.png` for people to look at
 * (the whole page in Chromium and Firefox, the viewport in WebKit).
 */
export async function saveScreenshot(
  page: EnginePage,
  name: string,
): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot(resolve(SCREENSHOTS, `${page.engine}-${name}.png`));
}

/**
 * The focused element as a test names it: its id, its `data-testid`, its
 * class, or its tag name.
 */
export function focusedName(page: EnginePage): Promise<string | undefined> {
  return page.evaluate(
    () =>
      document.activeElement?.id ||
      document.activeElement?.getAttribute('data-testid') ||
      document.activeElement?.className ||
      document.activeElement?.tagName,
  );
}

/** WCAG 2.0, 2.1 and 2.2, levels A and AA: axe-core's tags for them. */
export const WCAG_22_AA = [
  'wcag2a',
  'wcag2aa',
  'wcag21a',
  'wcag21aa',
  'wcag22aa',
];

let axeSource: string | undefined;

/** What axe-core needs of a page: any engine's, or Playwright's (../axe.ts). */
export type AxePage = Pick<EnginePage, 'runScript' | 'evaluate'>;

/**
 * Injects axe-core (node_modules/axe-core/axe.min.js) and runs it on the
 * whole document with the WCAG 2.2 AA tags and no rule disabled.
 *
 * @returns one line per violation: `rule: target, target`
 */
export async function axeViolations(page: AxePage): Promise<string[]> {
  axeSource ??= readFileSync(
    createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
    'utf8',
  );
  await page.runScript(axeSource);
  return page.evaluate(async (tags: string[]) => {
    const { axe } = window as unknown as {
      axe: { run: (context: Document, options: object) => Promise<AxeResults> };
    };
    // Axe measures the laid-out page (target sizes, contrast): a page
    // whose stylesheet is still on its way would be judged unstyled. Only
    // the stylesheets are awaited: a test may hold a script on purpose.
    const styled = () =>
      [...document.querySelectorAll('link[rel~="stylesheet"]')].every(
        (link) => (link as HTMLLinkElement).sheet !== null,
      );
    while (!styled()) {
      await new Promise((next) => setTimeout(next, 20));
    }
    const results = await axe.run(document, {
      runOnly: { type: 'tag', values: tags },
    });
    return results.violations.map(
      (violation) =>
        `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
  }, WCAG_22_AA);
}

/**
 * Whether the page scrolls sideways, and which visible elements stick out
 * (WCAG 1.4.10's reflow); self-contained, for `page.evaluate`.
 */
export function horizontalOverflow() {
  const width = document.documentElement.clientWidth;
  const outside = [...document.querySelectorAll<HTMLElement>('body *')]
    .filter((element) => {
      const box = element.getBoundingClientRect();
      return box.width > 0 && (box.right > width + 0.5 || box.left < -0.5);
    })
    .map(
      (element) =>
        `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}.${element.className}`,
    );
  return {
    scrolls: document.documentElement.scrollWidth > width,
    outside,
  };
}

/** Runs `body` on the page, closing the page whatever happens. */
export async function using<T>(
  page: EnginePage,
  body: (page: EnginePage) => Promise<T>,
) {
  try {
    return await body(page);
  } finally {
    await page.close();
  }
}
