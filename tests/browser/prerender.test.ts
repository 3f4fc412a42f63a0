/**
 * The prerendered page (scripts/build.ts, src/main.tsx): the HTML response
 * carries the page's markup and its whole stylesheet before any JavaScript
 * runs, with one inline script (src/inputCapture/inputCapture.ts) and no render-blocking
 * request; in Chromium every visit hydrates that markup (React keeps every
 * prerendered node), with address parameters or a stored consent too; no
 * visit logs an error or a warning or shifts the layout; the app's script
 * starts from the first paint (with the page's timers held, so that no
 * test here races the wall clock: ADR-0086); Google's reCAPTCHA script waits
 * for the first interaction or an idle browser.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { useFakeRecaptcha } from '../../harness/page/fakeRecaptcha';
import { useFakeTag } from '../../harness/page/fakeTag';
import { TEST_CONSENT_REVISION } from '../../harness/page/paths';
import { DESKTOP, PHONE } from '../../harness/page/signUpPage';
import {
  startTestServer,
  type TestServer,
} from '../../harness/page/testServer';

/** What the init script keeps in the page. */
interface PrerenderProbe {
  /** Nodes React removed from inside `#root` (none when it hydrated). */
  removedFromRoot: number;
  /** Sum of the layout shifts not caused by input (CLS's raw material). */
  layoutShift: number;
}

/** Runs before the page's scripts: counts removals and layout shifts. */
function probe(): void {
  const state: PrerenderProbe = { removedFromRoot: 0, layoutShift: 0 };
  (window as unknown as { __prerender: PrerenderProbe }).__prerender = state;
  new MutationObserver((records) => {
    for (const record of records) {
      const root = document.getElementById('root');
      if (root?.contains(record.target) && record.removedNodes.length > 0) {
        state.removedFromRoot += record.removedNodes.length;
      }
    }
  }).observe(document, { childList: true, subtree: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const shift = entry as PerformanceEntry & {
        value: number;
        hadRecentInput: boolean;
      };
      if (!shift.hadRecentInput) state.layoutShift += shift.value;
    }
  }).observe({ type: 'layout-shift', buffered: true });
}

interface Visit {
  context: BrowserContext;
  page: Page;
  /** Console errors and warnings, and uncaught exceptions. */
  problems: string[];
}

async function visit(
  browser: Browser,
  origin: string,
  options: {
    query?: string;
    storedConsent?: string;
    viewport?: { width: number; height: number };
  } = {},
): Promise<Visit> {
  const context = await browser.newContext({
    viewport: options.viewport ?? DESKTOP,
  });
  if (options.storedConsent !== undefined) {
    await context.addCookies([
      {
        name: 'Vigil_COOKIE_CONSENT',
        value: options.storedConsent,
        url: origin,
      },
      // Made under the test page's CONSENT_REVISION (ADR-0067).
      {
        name: 'Vigil_CONSENT_REVISION',
        value: String(TEST_CONSENT_REVISION),
        url: origin,
      },
    ]);
  }
  await useFakeTag(context);
  const page = await context.newPage();
  await useFakeRecaptcha(page);
  await page.addInitScript(probe);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      problems.push(`${message.type()}: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  await page.goto(`${origin}/signup${options.query ?? ''}`);
  // Mounted without interaction once the browser is idle.
  await page.getByTestId('fake-captcha').waitFor();
  return { context, page, problems };
}

function readProbe(page: Page): Promise<PrerenderProbe> {
  return page.evaluate(
    () => (window as unknown as { __prerender: PrerenderProbe }).__prerender,
  );
}

let browser: Browser;
let server: TestServer;

/** The page's time while its clock is held. */
const HELD_CLOCK = new Date('2026-01-05T09:00:00Z');
/**
 * Where the page's clock starts, a day before {@link HELD_CLOCK}: an
 * installed clock runs until it is paused, and `pauseAt` only goes forward,
 * so the pause must lie ahead of the start however slowly the test runs.
 * The page has no timer yet when the clock jumps to the pause.
 */
const CLOCK_START = new Date(HELD_CLOCK.getTime() - 24 * 60 * 60 * 1000);

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the prerendered page', () => {
  it('is in the HTML response with its stylesheet, and no request blocks rendering', async () => {
    const response = await fetch(`${server.origin}/signup`);
    const html = await response.text();
    expect(html).toMatch(/<form id="signup-form"/);
    expect(html).toContain('<title>Create your Vigil account</title>');
    for (const name of ['name', 'email', 'url', 'newsletter', 'tos']) {
      expect(html).toContain(`name="${name}"`);
    }
    expect(html).toContain('class="captcha__box"');
    // Nothing blocks rendering: the stylesheet is inline, and the one
    // script is the inline script, which starts the app's.
    expect(html).not.toMatch(/<link[^>]*stylesheet/);
    expect(html.match(/<style>/g)).toHaveLength(1);
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts).toEqual(['<script>']);
    expect(html).toMatch(/<form id="signup-form"[^>]* method="post"/);
  });

  it('with JavaScript turned off, says that signing up needs it and shows no form', async () => {
    const context = await browser.newContext({
      viewport: PHONE,
      javaScriptEnabled: false,
    });
    const page = await context.newPage();
    await page.goto(`${server.origin}/signup`);
    // (Playwright's text selectors skip <noscript>: located by CSS.)
    const message = page.locator('noscript p');
    await expect(message.isVisible()).resolves.toBe(true);
    await expect(message.textContent()).resolves.toMatch(
      /^\s*Signing up needs JavaScript/,
    );
    // Nothing to type into that could then be lost.
    await expect(page.locator('#signup-form').isVisible()).resolves.toBe(false);
    await expect(page.getByLabel('Your name').isVisible()).resolves.toBe(false);
    await context.close();
  });

  it("starts the app's script from the first paint, with the page's clock held", async () => {
    // The inline script starts the app on the first contentful paint, or
    // after APP_START_FALLBACK_MS (1 s) without one. The page's timers are
    // held here (Playwright's clock), so the fallback can never fire: the
    // script can only appear because the page painted, however long that
    // takes on a loaded machine. The fallback's own rule is judged with a
    // fake clock in tests/unit/inputCapture.test.ts.
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await useFakeRecaptcha(page);
    // Whether the page had painted when the app's script element appeared,
    // read from the real Performance object: the held clock replaces
    // window.performance, whose entries it empties, after this runs.
    await page.addInitScript(() => {
      const realPerformance = window.performance;
      const log = { scriptAppeared: false, paintedBefore: false };
      (window as unknown as { __appScript: typeof log }).__appScript = log;
      new MutationObserver((_records, observer) => {
        if (document.querySelector('script[type=module]')) {
          observer.disconnect();
          log.scriptAppeared = true;
          log.paintedBefore =
            realPerformance.getEntriesByName('first-contentful-paint').length >
            0;
        }
      }).observe(document, { childList: true, subtree: true });
    });
    await page.clock.install({ time: CLOCK_START });
    await page.clock.pauseAt(HELD_CLOCK);
    await page.goto(`${server.origin}/signup`);
    await page.locator('script[type=module]').waitFor({ state: 'attached' });
    const log = await page.evaluate(
      () =>
        (
          window as unknown as {
            __appScript: { scriptAppeared: boolean; paintedBefore: boolean };
          }
        ).__appScript,
    );
    expect(log).toEqual({ scriptAppeared: true, paintedBefore: true });
    // The clock never moved: no timer of the page's can have started it.
    await expect(page.evaluate(() => Date.now())).resolves.toBe(
      HELD_CLOCK.getTime(),
    );
    await context.close();
  });

  it('is hydrated on a default visit: no node replaced, nothing logged, no shift', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { context, page, problems } = await visit(browser, server.origin, {
        viewport,
      });
      const { removedFromRoot, layoutShift } = await readProbe(page);
      expect(problems).toEqual([]);
      expect(removedFromRoot).toBe(0);
      expect(layoutShift).toBe(0);
      // Hydrated: the prerendered inputs answer React.
      await page.getByLabel('Your name').fill('Ada');
      await expect(page.getByLabel('Your name').inputValue()).resolves.toBe(
        'Ada',
      );
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it('is hydrated with a prefill and utm_source: no node replaced, nothing logged, no shift', async () => {
    const { context, page, problems } = await visit(browser, server.origin, {
      query: '?name=Ada&email=a@example.com&utm_source=google',
    });
    await page.getByTestId('consent-modal').waitFor();
    await expect(page.locator('input[name=name]').inputValue()).resolves.toBe(
      'Ada',
    );
    // The e-mail comes once the form's rules have judged it (ADR-0071).
    await expect
      .poll(() => page.locator('input[name=email]').inputValue())
      .toBe('a@example.com');
    const { layoutShift, removedFromRoot } = await readProbe(page);
    expect(problems).toEqual([]);
    expect(layoutShift).toBe(0);
    expect(removedFromRoot).toBe(0);
    await context.close();
  });

  it('is hydrated with a stored consent: no node replaced, nothing logged, no shift', async () => {
    const { context, page, problems } = await visit(browser, server.origin, {
      storedConsent: '1',
    });
    await page.getByTestId('consent-settings').waitFor();
    const { layoutShift, removedFromRoot } = await readProbe(page);
    expect(problems).toEqual([]);
    expect(layoutShift).toBe(0);
    expect(removedFromRoot).toBe(0);
    await context.close();
  });
});

describe("Google's reCAPTCHA script", () => {
  it('is requested after the first paint, without interaction', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await useFakeRecaptcha(page);
    // When the captcha's script element is inserted, and whether the page
    // had painted its content by then.
    await page.addInitScript(() => {
      const log = { insertedAt: -1, paintedBefore: false };
      (window as unknown as { __captchaScript: typeof log }).__captchaScript =
        log;
      new MutationObserver(() => {
        if (log.insertedAt >= 0) return;
        if (document.querySelector('script[src*="/recaptcha/"]')) {
          log.insertedAt = performance.now();
          log.paintedBefore =
            performance.getEntriesByName('first-contentful-paint').length > 0;
        }
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${server.origin}/signup`);
    await page.getByTestId('fake-captcha').waitFor();
    const log = await page.evaluate(
      () =>
        (
          window as unknown as {
            __captchaScript: { insertedAt: number; paintedBefore: boolean };
          }
        ).__captchaScript,
    );
    expect(log.insertedAt).toBeGreaterThan(0);
    expect(log.paintedBefore).toBe(true);
    await context.close();
  });

  it('is requested at once on the first interaction with the form', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await useFakeRecaptcha(page);
    // A browser that is never idle: only the interaction can mount it.
    await page.addInitScript(() => {
      window.requestIdleCallback = () => 0;
    });
    await page.goto(`${server.origin}/signup`);
    await page.waitForTimeout(3000);
    await expect(page.getByTestId('fake-captcha').count()).resolves.toBe(0);
    await page.getByLabel('Your name').focus();
    await page.getByTestId('fake-captcha').waitFor({ timeout: 5000 });
    await context.close();
  });
});
