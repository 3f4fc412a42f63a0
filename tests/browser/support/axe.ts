/**
 * axe-core's WCAG 2.2 AA check (./engines/visit.ts `axeViolations`) on a
 * Playwright page, for the Chromium-only tests and the atlas.
 */
import type { Page } from 'playwright-core';
import { axeViolations, type AxePage } from './engines/visit';

/**
 * The page as axe's runner needs it. Functions are sent as their source
 * and called with JSON arguments, as the engines' drivers do; Playwright's
 * own evaluation runs outside the page's Content-Security-Policy.
 */
function axePage(page: Page): AxePage {
  return {
    runScript: async (source) => {
      await page.evaluate(source);
    },
    evaluate: <T, A extends unknown[]>(
      fn: (...args: A) => T | Promise<T>,
      ...args: A
    ) =>
      page.evaluate(
        `(${fn.toString()})(...${JSON.stringify(args)})`,
      ) as Promise<T>,
  };
}

/**
 * axe-core's violations of WCAG 2.2 AA on the page as it is now.
 *
 * @returns one line per violation: `rule: target, target`; empty when none
 */
export function axeViolationsIn(page: Page): Promise<string[]> {
  return axeViolations(axePage(page));
}
