/**
 * The security headers of the local server (server/http/securityHeaders.ts) in
 * Chromium: a whole visit (arrival from an ad, consent given and withdrawn,
 * a failed attempt reported to the error-reporting service, sign-up through
 * the fake captcha and the real local API, the account page) raises no
 * `securitypolicyviolation`, while the policy does refuse
 * an injected inline script and framing. The fake reCAPTCHA and the fake
 * tag are answered by `route` at Google's and the tag's real addresses, so
 * the policy judges them as it would the real ones.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contentSecurityPolicyDirectives,
  INLINE_HASHES_FILE,
  parseContentSecurityPolicy,
  REFERRER_POLICY,
  type CspDirectives,
} from '../../server/http/securityHeaders';
import { SIGN_UP_PATH } from '../../contract/signUp';
import { launchChromium } from './support/chromium';
import { useFakeRecaptcha } from '../../harness/page/fakeRecaptcha';
import { useFakeTag } from '../../harness/page/fakeTag';
import { readConfig } from '../../common/config';
import {
  TEST_BUILDS,
  TEST_SENTRY_DSN,
  TEST_TAG_URL,
} from '../../harness/page/paths';
import {
  DESKTOP,
  fillSignUpForm,
  submitButton,
  validEntry,
} from '../../harness/page/signUpPage';
import {
  startTestServer,
  type TestServer,
} from '../../harness/page/testServer';

/** What the page's listener keeps of a `securitypolicyviolation` event. */
interface Violation {
  page: string;
  directive: string;
  blocked: string;
  sample: string;
}

/** The globals this file's scripts and the fakes leave in the page. */
interface TestWindow {
  __cspViolations?: Violation[];
  __reportCspViolation?: (violation: Violation) => Promise<void>;
  __tagRuns?: number;
  __inlineRan?: boolean;
}

/**
 * Runs before any script of every document: keeps each violation in
 * `window.__cspViolations` and reports it to the test too, so that one
 * raised just before a navigation is not lost with the document.
 */
function collectViolations(): void {
  const test = window as unknown as TestWindow;
  test.__cspViolations = [];
  document.addEventListener(
    'securitypolicyviolation',
    (event) => {
      const violation = {
        page: location.pathname,
        directive: event.effectiveDirective,
        blocked: event.blockedURI,
        sample: event.sample,
      };
      test.__cspViolations?.push(violation);
      void test.__reportCspViolation?.(violation);
    },
    true,
  );
}

interface Visit {
  context: BrowserContext;
  page: Page;
  /** Every violation any document of the context reported. */
  violations: Violation[];
  /** Chromium's console errors about the policy ("Refused to …"). */
  consoleErrors: string[];
  tagRequests: () => number;
}

/** A fresh context with the fakes and the violation collector in place. */
async function startVisit(browser: Browser): Promise<Visit> {
  const context = await browser.newContext({
    viewport: DESKTOP,
    ignoreHTTPSErrors: true,
  });
  const violations: Violation[] = [];
  await context.exposeFunction('__reportCspViolation', (v: Violation) => {
    violations.push(v);
  });
  await context.addInitScript(collectViolations);
  const tagRequests = await useFakeTag(context);
  const page = await context.newPage();
  await useFakeRecaptcha(page);
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) {
      consoleErrors.push(message.text());
    }
  });
  return { context, page, violations, consoleErrors, tagRequests };
}

const pageViolations = (page: Page) =>
  page.evaluate(() => (window as TestWindow).__cspViolations ?? []);
const inlineRan = (page: Page) =>
  page.evaluate(() => (window as TestWindow).__inlineRan);

/** The policy a build's configuration and its inline blocks call for. */
function policyOf(build: keyof typeof TEST_BUILDS): CspDirectives {
  const { env, distDir } = TEST_BUILDS[build];
  const config = readConfig(env);
  return contentSecurityPolicyDirectives({
    trackingTagUrl: config.trackingTagUrl,
    sentryDsn: config.sentryDsn,
    inlineHashes: JSON.parse(
      readFileSync(join(distDir, INLINE_HASHES_FILE), 'utf8'),
    ) as { script: string[]; style: string[] },
  });
}

/** The CSP hash source of each `<tag>` block of an HTML text. */
function inlineBlockHashes(html: string, tag: 'script' | 'style'): string[] {
  return [
    ...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g')),
  ].map(
    ([, text]) =>
      `'sha256-${createHash('sha256')
        .update(text ?? '')
        .digest('base64')}'`,
  );
}

/** What the test server must send for the tagged build. */
const expectedPolicy = policyOf('tagged');

function expectSecurityHeaders(
  headers: Record<string, string>,
  policy: CspDirectives = expectedPolicy,
) {
  const csp = headers['content-security-policy'];
  expect(csp, 'Content-Security-Policy').toBeDefined();
  expect(parseContentSecurityPolicy(csp ?? '')).toEqual(policy);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe(REFERRER_POLICY);
  expect(headers['x-frame-options']).toBe('DENY');
}

let browser: Browser;
let server: TestServer;
let productHost: TestServer;

beforeAll(async () => {
  [browser, server, productHost] = await Promise.all([
    launchChromium(),
    startTestServer(),
    startTestServer({ https: true }),
  ]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.close(), productHost?.close()]);
});

describe('a full visit raises no policy violation', () => {
  it.each([
    ['http://localhost', () => server],
    ['the HTTPS product host', () => productHost],
  ])('on %s', async (_where, serverOf) => {
    const { origin } = serverOf();
    const visit = await startVisit(browser);
    const { page } = visit;

    const arrival = await page.goto(`${origin}/signup?utm_source=google`);
    expectSecurityHeaders((await arrival?.allHeaders()) ?? {});
    await page.getByTestId('fake-captcha').waitFor();

    // Consent given: the tag loads from its own origin and runs.
    await page.getByTestId('consent-accept').click();
    await expect
      .poll(() => page.evaluate(() => (window as TestWindow).__tagRuns))
      .toBe(1);
    expect(visit.tagRequests()).toBe(1);

    // Withdrawn from the settings link: the tag's element goes.
    await page.getByTestId('consent-settings').click();
    await page.getByTestId('consent-reject').click();
    await expect(
      page.locator('script[data-testid=tracking-tag]').count(),
    ).resolves.toBe(0);

    // A first attempt fails (the API answers 500 with HTML, once): the page
    // fetches its error-reporting chunk and sends a report to SENTRY_DSN.
    const reports: string[] = [];
    await page.route(`${new URL(TEST_SENTRY_DSN).origin}/**`, (route) => {
      reports.push(route.request().url());
      return route.fulfill({ contentType: 'application/json', body: '{}' });
    });
    await page.route(
      `**${SIGN_UP_PATH}`,
      (route) =>
        route.fulfill({
          status: 500,
          contentType: 'text/html',
          body: '<h1>Internal Server Error</h1>',
        }),
      { times: 1 },
    );
    await fillSignUpForm(page, validEntry());
    await submitButton(page).click();
    await page.getByTestId('error-general').waitFor();
    await expect.poll(() => reports.length).toBeGreaterThan(0);

    // The second goes to the local API and lands on /.
    await fillSignUpForm(page, { captcha: true });
    await expect(pageViolations(page)).resolves.toEqual([]);
    const answer = page.waitForResponse(
      (response) => new URL(response.url()).pathname === SIGN_UP_PATH,
    );
    const landing = page.waitForResponse(
      (response) => response.url() === `${origin}/`,
    );
    await submitButton(page).click();
    const apiResponse = await answer;
    expect(apiResponse.status()).toBe(200);
    expectSecurityHeaders(await apiResponse.allHeaders());
    await page.waitForURL(`${origin}/`);
    expectSecurityHeaders(await (await landing).allHeaders());
    await page.getByRole('heading', { name: 'Welcome to Vigil' }).waitFor();
    // The account page's stylesheet, a file of its own, applies.
    await expect(
      page.evaluate(() => getComputedStyle(document.body).backgroundColor),
    ).resolves.toBe('rgb(241, 245, 249)');

    await page.waitForTimeout(300);
    await expect(pageViolations(page)).resolves.toEqual([]);
    expect(visit.violations).toEqual([]);
    expect(visit.consoleErrors).toEqual([]);
    await visit.context.close();
  });
});

describe("the page's inline blocks", () => {
  it.each([
    ['the page', {}],
    // ADR-0074: the copy marked for Global Privacy Control has the same blocks.
    ['the page for Sec-GPC: 1', { 'sec-gpc': '1' }],
  ])(
    'are allowed each by its hash, never by unsafe-inline: %s',
    async (_page, headers) => {
      const response = await fetch(`${server.origin}/signup`, { headers });
      const html = await response.text();
      const policy = parseContentSecurityPolicy(
        response.headers.get('content-security-policy') ?? '',
      );
      const scripts = inlineBlockHashes(html, 'script');
      const styles = inlineBlockHashes(html, 'style');
      expect(scripts).toHaveLength(1);
      expect(styles).toHaveLength(1);
      expect(policy['script-src']).toEqual(expect.arrayContaining(scripts));
      expect(policy['style-src']).toEqual(expect.arrayContaining(styles));
      expect(policy['script-src']).not.toContain("'unsafe-inline'");
      expect(policy['style-src']).not.toContain("'unsafe-inline'");
    },
  );

  it('run and apply under the policy: the page is styled, the app starts and takes a submit', async () => {
    const visit = await startVisit(browser);
    const { page } = visit;
    // Blocked styles would leave the body white; a blocked inline script
    // would never start the app.
    await page.goto(`${server.origin}/signup`);
    await expect(
      page.evaluate(() => getComputedStyle(document.body).backgroundColor),
    ).resolves.toBe('rgb(241, 245, 249)');
    await page.locator('#signup-form button[type=submit]').click();
    await page.getByTestId('notice-captcha').waitFor();
    expect(new URL(page.url()).search).toBe('');
    await page.waitForTimeout(300);
    await expect(pageViolations(page)).resolves.toEqual([]);
    expect(visit.violations).toEqual([]);
    expect(visit.consoleErrors).toEqual([]);
    await visit.context.close();
  });
});

describe('the policy is enforced', () => {
  it('refuses an injected inline script and reports it', async () => {
    const visit = await startVisit(browser);
    const { page } = visit;
    await page.goto(`${server.origin}/signup`);
    await page.getByTestId('fake-captcha').waitFor();
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true';
      document.head.append(script);
    });
    await expect
      .poll(() => pageViolations(page))
      .toEqual([
        expect.objectContaining({
          page: '/signup',
          directive: 'script-src-elem',
          blocked: 'inline',
        }),
      ]);
    await expect(inlineRan(page)).resolves.toBe(undefined);
    await visit.context.close();
  });

  it('refuses a script from an origin it does not list', async () => {
    const visit = await startVisit(browser);
    const { page } = visit;
    await page.route('https://cdn.elsewhere.example/**', (route) =>
      route.fulfill({
        contentType: 'text/javascript',
        body: 'window.__inlineRan = true',
      }),
    );
    await page.goto(`${server.origin}/signup`);
    await page.getByTestId('fake-captcha').waitFor();
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.src = 'https://cdn.elsewhere.example/x.js';
      document.head.append(script);
    });
    await expect
      .poll(() => pageViolations(page))
      .toEqual([
        expect.objectContaining({
          directive: 'script-src-elem',
          blocked: 'https://cdn.elsewhere.example/x.js',
        }),
      ]);
    await expect(inlineRan(page)).resolves.toBe(undefined);
    await visit.context.close();
  });

  it('refuses to be framed (frame-ancestors)', async () => {
    const visit = await startVisit(browser);
    const { page } = visit;
    // A page without the policy framing the sign-up page; 'none' refuses
    // every ancestor, even one of the same origin.
    await page.route(`${server.origin}/framer`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<iframe src="${server.origin}/signup"></iframe>`,
      }),
    );
    const framed = page.waitForResponse(`${server.origin}/signup`);
    await page.goto(`${server.origin}/framer`);
    await framed;
    await expect
      .poll(() => visit.consoleErrors.join('\n'))
      .toMatch(/frame-ancestors 'none'/);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    // The framed document never loads: no form, no captcha.
    expect(frame).toBeDefined();
    await expect(frame?.locator('#signup-form').count()).resolves.toBe(0);
    await visit.context.close();
  });
});

describe('the headers', () => {
  it('are sent on the page, the account page, its stylesheet, the health check and the API', async () => {
    for (const path of ['/signup', '/', '/account.css', '/healthz']) {
      const response = await fetch(`${server.origin}${path}`);
      expect(response.status, path).toBe(200);
      expectSecurityHeaders(Object.fromEntries(response.headers));
    }
    const refused = await fetch(`${server.origin}${SIGN_UP_PATH}`, {
      method: 'POST',
      body: new URLSearchParams({ name: 'Ada' }),
    });
    expect(refused.status).toBe(400);
    expectSecurityHeaders(Object.fromEntries(refused.headers));
  });

  it('list no tag origin for a build without a tag', async () => {
    const untagged = await startTestServer({ build: 'untagged' });
    try {
      const response = await fetch(`${untagged.origin}/signup`);
      expectSecurityHeaders(
        Object.fromEntries(response.headers),
        policyOf('untagged'),
      );
      expect(response.headers.get('content-security-policy')).not.toContain(
        new URL(TEST_TAG_URL).origin,
      );
    } finally {
      await untagged.close();
    }
  });
});
