/**
 * The monitoring the welcome page promises, in the browser (issue 45;
 * ADR-0106): the built page in headless Chromium, the engine
 * `npm test` runs (the `browser` project), against the real local service
 * with its site monitor on. The light and dark schemes and forced colours
 * are Playwright's `emulateMedia`, which drives Chromium alone, as in
 * tests/browser/appearance.test.ts.
 *
 * A visitor signs up with a local site's URL; `/` lists it, and its page
 * (issue 59), read in a second browser context with JavaScript turned
 * off (server-rendered, without script), shows the site
 *
 * 1. "Checking for the first time" before any check;
 * 2. "Up", once the first check ran: when (relative and absolute), the
 *    status code and the response time; the last 24 hours as an image
 *    whose text alternative gives the median, the slowest and the time
 *    down;
 * 3. "Checking again" after one failed check, with its reason;
 * 4. "Down" after a second failed check, with its reason and time down;
 * 5. "Up" once it answers again; its "Check now" button runs a check at
 *    once and comes back to the site's page with the result.
 *
 * Then the owner adds a second site, sees both checked, pauses one, edits
 * one and removes one, from `/` and the sites' pages, without script.
 *
 * In each of the four states axe-core finds no WCAG 2.2 AA violation in
 * the light scheme, the dark scheme and forced colours, and nothing
 * scrolls sideways at 320 CSS px.
 *
 * Nothing leaves loopback (harness/page/monitoredService.ts): the
 * site is a local server on 127.0.0.1, its name `site.test` is resolved
 * by the tests' table, and every connection a check opens passes the
 * loopback tripwire. No test races the wall clock: the test moves the
 * monitor's clock and runs the due checks itself, then reloads the page.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DESKTOP,
  fillSignUpForm,
  openSignUpPage,
  REFLOW,
  submitButton,
  validEntry,
} from '../../harness/page/signUpPage';
import {
  startMonitoredService,
  TEST_INTERVAL_MS,
  type MonitoredService,
} from '../../harness/page/monitoredService';
import { isLoopback } from '../../harness/monitor/tripwire';
import { startReceiver } from '../server/support/outboxService';
import { axeViolationsIn } from './support/axe';
import { launchChromium } from './support/chromium';

/** A sign-up, six loads of `/`, twelve axe runs, one "Check now". */
const JOURNEY_TIMEOUT = 120_000;

/** The watched site's number on the switchable site (`/site?n=1`). */
const SITE = 1;

/** The settings each state is audited in. */
const APPEARANCES = [
  {
    name: 'the light scheme',
    media: { colorScheme: 'light', forcedColors: 'none' },
    query: '(prefers-color-scheme: light)',
  },
  {
    name: 'the dark scheme',
    media: { colorScheme: 'dark', forcedColors: 'none' },
    query: '(prefers-color-scheme: dark)',
  },
  {
    name: 'forced colours',
    media: { colorScheme: 'light', forcedColors: 'active' },
    query: '(forced-colors: active)',
  },
] as const;

const suite = {} as { browser: Browser; service: MonitoredService };
beforeAll(async () => {
  [suite.browser, suite.service] = await Promise.all([
    launchChromium(),
    startMonitoredService(),
  ]);
});
afterAll(async () => {
  await Promise.all([suite.browser?.close(), suite.service?.close()]);
});
afterEach(() => {
  // No check may have tried to leave loopback, whatever else failed.
  expect(suite.service.tripwire.violations).toEqual([]);
});

/** Presses the submit button of the form with a test selector. */
async function submit(page: Page, testId: string): Promise<void> {
  await page.getByTestId(testId).locator('button[type=submit]').click();
}

/**
 * The visible text of the (first) element with a test selector, spaces
 * collapsed.
 */
async function shown(page: Page, testId: string): Promise<string> {
  const text = await page.getByTestId(testId).first().innerText();
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Loads `url` (undefined: the page shown), which must show the site
 * `state` when one is given, and returns axe-core's findings on it in each of
 * {@link APPEARANCES}, and its sideways scroll at {@link REFLOW}; back in
 * the light scheme at the desktop width after. On a page that runs
 * script: axe-core runs in the page, on its timers.
 *
 * @returns one line per problem, naming the setting; empty when none
 */
async function auditEveryAppearance(
  page: Page,
  url: string | undefined,
  state?: string,
): Promise<string[]> {
  if (url !== undefined) await page.goto(url);
  if (state !== undefined) {
    expect(await shown(page, 'monitor-state')).toBe(state);
  }
  const found: string[] = [];
  for (const { name, media, query } of APPEARANCES) {
    // Reduced motion: the colours switch without a transition, so axe
    // measures the end colours.
    await page.emulateMedia({ ...media, reducedMotion: 'reduce' });
    // The audit is of the setting it names.
    expect(await page.evaluate((q) => matchMedia(q).matches, query), name).toBe(
      true,
    );
    found.push(
      ...(await axeViolationsIn(page)).map((line) => `${name}: ${line}`),
    );
  }
  await page.emulateMedia({
    colorScheme: 'light',
    forcedColors: 'none',
    reducedMotion: 'no-preference',
  });
  await page.setViewportSize(REFLOW);
  const sideways = await page.evaluate(
    () => document.documentElement.scrollWidth - window.innerWidth,
  );
  if (sideways > 0) found.push(`320 px: scrolls ${sideways} px sideways`);
  await page.setViewportSize(DESKTOP);
  return found;
}

/**
 * Opens `url`, fills its form `testId` with `fill` and submits it, which
 * must be refused; returns axe-core's findings on the refusal, as
 * {@link auditEveryAppearance}.
 */
async function auditRefusal(
  page: Page,
  url: string,
  testId: string,
  fill: () => Promise<void>,
): Promise<string[]> {
  await page.goto(url);
  await fill();
  await submit(page, testId);
  await page.getByTestId('error-summary').waitFor();
  return auditEveryAppearance(page, undefined);
}

/** `HH:MM UTC on D Month YYYY`, as a person reads the time of a check. */
function inWordsUtc(date: Date): string {
  const time = date.toISOString().slice(11, 16);
  const day = date.toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
  return `${time} UTC on ${day}`;
}

/**
 * What `/` must say of the latest check when it was made between `from`
 * and `to` on the monitor's clock: when, relative ("just now", "12 seconds
 * ago": the wall clock runs on while the page loads) and absolute (its
 * UTC time and day, also machine-readable in a `<time>`).
 */
async function expectCheckedBetween(page: Page, from: Date, to: Date) {
  const text = await shown(page, 'monitor-last-check');
  expect(text).toMatch(/\b(just now|\d+ (seconds?|minutes?) ago)\b/);
  const stamp = await page
    .getByTestId('monitor-last-check')
    .locator('time')
    .getAttribute('datetime');
  const at = new Date(stamp ?? '');
  expect(at.getTime()).toBeGreaterThanOrEqual(from.getTime());
  expect(at.getTime()).toBeLessThanOrEqual(to.getTime());
  expect(text).toContain(inWordsUtc(at));
}

describe("a site's page", () => {
  it(
    'sign up with a local site, then / shows Checking for the first time, Up, Checking again, Down and Up again, and "Check now" runs a check; axe-core finds nothing in each state in the light and dark schemes and forced colours',
    async () => {
      const { service } = suite;
      const { origin } = service.server;
      const url = service.site.url(SITE);
      expect(url).toMatch(/^http:\/\/site\.test:\d+\/site\?n=1$/);
      const signUp = await openSignUpPage(suite.browser, origin);
      let viewer: BrowserContext | undefined;
      try {
        // The visitor signs up with the site's URL, which the page accepts:
        // it is sent as typed, and the account at `/` watches it.
        const entry = validEntry({ url });
        await fillSignUpForm(signUp.page, entry);
        await submitButton(signUp.page).click();
        await signUp.page.waitForURL(`${origin}/`);
        expect(signUp.signUpRequests).toHaveLength(1);
        expect(
          new URLSearchParams(signUp.signUpRequests[0]?.postData() ?? '').get(
            'url',
          ),
        ).toBe(url);
        // `/` lists the site: the sign-up's is the account's first.
        await expect(shown(signUp.page, 'site-url')).resolves.toBe(url);

        // The site's page from here on in a browser that runs no script,
        // signed in with the session the sign-up's browser was given.
        viewer = await suite.browser.newContext({
          viewport: DESKTOP,
          javaScriptEnabled: false,
        });
        await viewer.addCookies(await signUp.context.cookies());
        const page = await viewer.newPage();
        await page.goto(`${origin}/`);
        await page.getByTestId('site-link').click();
        await page.getByTestId('site-page').waitFor();
        const sitePage = page.url();
        expect(new URL(sitePage).pathname).toMatch(/^\/sites\/\d+$/);
        const load = async () => {
          const answer = await page.goto(sitePage);
          expect(answer?.status()).toBe(200);
        };
        // The same page in the sign-up's browser, for axe-core.
        const audit = (state: string) =>
          auditEveryAppearance(signUp.page, sitePage, state);

        // 1. Before any check.
        await load();
        await expect(shown(page, 'monitor-state')).resolves.toBe(
          'Checking for the first time',
        );
        expect(service.site.hits(SITE)).toBe(0);
        await expect(
          page.getByTestId('monitor-last-check').count(),
        ).resolves.toBe(1);
        await expect(page.getByTestId('monitor-chart').count()).resolves.toBe(
          1,
        );
        await expect(page.getByTestId('check-now').count()).resolves.toBe(1);
        // A plain http site has no certificate to show.
        await expect(
          page.getByTestId('monitor-certificate').count(),
        ).resolves.toBe(0);
        expect(await audit('Checking for the first time'), 'pending').toEqual(
          [],
        );

        // 2. The first check: up.
        const firstFrom = service.clock.now();
        expect(await service.checksAfter(0)).toBe(1);
        const firstTo = service.clock.now();
        expect(service.site.hits(SITE)).toBe(1);
        await load();
        await expect(shown(page, 'monitor-state')).resolves.toBe('Up');
        const up = await shown(page, 'monitor-last-check');
        expect(up).toContain('HTTP 200');
        expect(up).toMatch(/\b\d+ ms\b/);
        await expectCheckedBetween(page, firstFrom, firstTo);
        // The chart is an image whose text alternative gives the median,
        // the slowest and the time down of the last 24 hours.
        const image = page.getByTestId('monitor-chart').getByRole('img');
        await expect(image.count()).resolves.toBe(1);
        await expect(image.evaluate((node) => node.tagName)).resolves.toBe(
          'svg',
        );
        const chartName = page.getByTestId('monitor-chart').getByRole('img', {
          name: /median[^,]*\s\d+\sms.*slowest[^,]*\s\d+\sms.*time down\s0\sseconds/i,
        });
        await expect(chartName.count()).resolves.toBe(1);
        await expect(
          page.getByTestId('monitor-chart').locator('figcaption').innerText(),
        ).resolves.toMatch(/median.*slowest.*time down/i);
        expect(await audit('Up'), 'up').toEqual([]);

        // Until the owner confirms the address, that first check is the
        // only one (ADR-0120), and `/` says what starts monitoring.
        expect(await service.checksAfter(TEST_INTERVAL_MS)).toBe(0);
        expect(service.site.hits(SITE)).toBe(1);
        await load();
        await expect(
          page
            .getByText(
              'We check it on its schedule once you have confirmed your address.',
              { exact: false },
            )
            .count(),
        ).resolves.toBe(1);
        // The owner confirms the address with the magic link (in this
        // browser, whose session stays): the site is due at once.
        await page.goto((await service.confirmationLink(entry.email)).href);
        await page.getByTestId('link-continue').click();
        await page.waitForURL(`${origin}/`);
        expect(await service.checksAfter(0)).toBe(1);
        expect(service.site.hits(SITE)).toBe(2);

        // 3. The site fails: one failed check is not down yet.
        service.site.set(SITE, 'fail');
        const secondFrom = service.clock.now();
        expect(await service.checksAfter(TEST_INTERVAL_MS)).toBe(1);
        const secondTo = service.clock.now();
        await load();
        await expect(shown(page, 'monitor-state')).resolves.toBe(
          'Checking again',
        );
        await expect(shown(page, 'monitor-last-check')).resolves.toContain(
          'HTTP 503',
        );
        await expectCheckedBetween(page, secondFrom, secondTo);
        expect(await audit('Checking again'), 'suspect').toEqual([]);

        // 4. A second failure in a row, a third of the interval later: down.
        const thirdFrom = service.clock.now();
        expect(await service.checksAfter(TEST_INTERVAL_MS / 3)).toBe(1);
        const thirdTo = service.clock.now();
        expect(service.site.hits(SITE)).toBe(4);
        await load();
        await expect(shown(page, 'monitor-state')).resolves.toBe('Down');
        await expect(shown(page, 'monitor-last-check')).resolves.toContain(
          'HTTP 503',
        );
        await expectCheckedBetween(page, thirdFrom, thirdTo);
        // Down since the first failure, a third of the interval ago.
        await expect(
          page
            .getByTestId('monitor-chart')
            .getByRole('img', {
              name: /time down\s[1-9]\d*\s(seconds?|minutes?)\b/i,
            })
            .count(),
        ).resolves.toBe(1);
        expect(await audit('Down'), 'down').toEqual([]);

        // 5. It answers again: up.
        service.site.set(SITE, 'up');
        expect(await service.checksAfter(TEST_INTERVAL_MS)).toBe(1);
        await load();
        await expect(shown(page, 'monitor-state')).resolves.toBe('Up');
        await expect(shown(page, 'monitor-last-check')).resolves.toContain(
          'HTTP 200',
        );

        // "Check now": its form's POST checks the site at once (no clock
        // moved, nothing due) and comes back to its page with the result.
        const hitsBefore = service.site.hits(SITE);
        const pressedFrom = service.clock.now();
        await page.getByTestId('check-now').click();
        await page.getByTestId('check-now-result').waitFor();
        const pressedTo = service.clock.now();
        expect(new URL(page.url()).pathname).toBe(new URL(sitePage).pathname);
        expect(service.site.hits(SITE)).toBe(hitsBefore + 1);
        await expect(shown(page, 'check-now-result')).resolves.not.toBe('');
        await expect(shown(page, 'monitor-state')).resolves.toBe('Up');
        await expect(shown(page, 'monitor-last-check')).resolves.toContain(
          'HTTP 200',
        );
        await expectCheckedBetween(page, pressedFrom, pressedTo);

        expect(signUp.pageErrors).toEqual([]);
      } finally {
        await viewer?.close();
        await signUp.context.close();
      }

      // Every check stayed on loopback.
      const { tripwire } = service;
      expect(tripwire.violations).toEqual([]);
      expect(tripwire.attempts.length).toBeGreaterThanOrEqual(5);
      for (const attempt of tripwire.attempts) {
        expect(isLoopback(attempt.address), attempt.address).toBe(true);
      }
    },
    JOURNEY_TIMEOUT,
  );

  it(
    'many sites, one account: add a second site (a refused URL first), see both checked, pause one, edit one, remove one, without script; axe-core finds nothing on the list, the refused form, a paused site and the removal step',
    async () => {
      const { service } = suite;
      const { origin } = service.server;
      const first = 21;
      const second = 22;
      const signUp = await openSignUpPage(suite.browser, origin);
      let viewer: BrowserContext | undefined;
      try {
        const entry = validEntry({ url: service.site.url(first) });
        await fillSignUpForm(signUp.page, entry);
        await submitButton(signUp.page).click();
        await signUp.page.waitForURL(`${origin}/`);
        viewer = await suite.browser.newContext({
          viewport: DESKTOP,
          javaScriptEnabled: false,
        });
        await viewer.addCookies(await signUp.context.cookies());
        const page = await viewer.newPage();
        await page.goto((await service.confirmationLink(entry.email)).href);
        await page.getByTestId('link-continue').click();
        await page.waitForURL(`${origin}/`);
        await service.checksAfter(0);

        // Add a second site, from `/`: a URL the sign-up refuses first.
        await page.getByTestId('add-site').click();
        const form = page.getByTestId('site-form');
        await form.waitFor();
        await page.locator('#url').fill('localhost:8080');
        await page.locator('#name').fill('Second');
        await form.getByRole('button').click();
        await page.getByTestId('error-summary').waitFor();
        await expect(page.locator('#url').inputValue()).resolves.toBe(
          'localhost:8080',
        );
        await expect(page.locator('#name').inputValue()).resolves.toBe(
          'Second',
        );
        await expect(
          page.evaluate(() =>
            document.activeElement?.getAttribute('data-testid'),
          ),
        ).resolves.toBe('error-summary');
        // The refused form, audited where script runs (axe-core needs it).
        await signUp.page.goto(`${origin}/sites/new`);
        await signUp.page.locator('#url').fill('localhost:8080');
        await signUp.page.getByTestId('site-form').getByRole('button').click();
        await signUp.page.getByTestId('error-summary').waitFor();
        expect(
          await auditEveryAppearance(signUp.page, undefined),
          'refused form',
        ).toEqual([]);

        await page.locator('#url').fill(service.site.url(second));
        await form.getByRole('button').click();
        await page.getByTestId('site-page').waitFor();
        await expect(shown(page, 'site-note')).resolves.toMatch(/added/);
        const secondPage = page.url();

        // Both checked.
        expect(await service.checksAfter(0)).toBe(1);
        expect(service.site.hits(second)).toBe(1);
        await page.goto(`${origin}/`);
        await expect(page.getByTestId('site').count()).resolves.toBe(2);
        await expect(
          page.getByTestId('site').getByTestId('monitor-state').allInnerTexts(),
        ).resolves.toEqual(['Up', 'Up']);
        await expect(
          page.getByTestId('site-name').allInnerTexts(),
        ).resolves.toEqual([`site.test:${service.site.site.port}`, 'Second']);
        expect(
          await auditEveryAppearance(signUp.page, `${origin}/`, 'Up'),
          'list',
        ).toEqual([]);

        // Pause the second: not checked while paused.
        await page.goto(secondPage);
        await page.getByTestId('pause-site').getByRole('button').click();
        await page.getByTestId('site-paused').waitFor();
        expect(
          await auditEveryAppearance(signUp.page, secondPage, 'Paused'),
          'paused',
        ).toEqual([]);
        const hits = service.site.hits(second);
        await service.checksAfter(TEST_INTERVAL_MS);
        expect(service.site.hits(second)).toBe(hits);

        // Edit the first: a new name, the form filled with what it was.
        await page.goto(`${origin}/`);
        await page.getByTestId('site-link').first().click();
        await page.getByTestId('edit-site').click();
        await expect(page.locator('#url').inputValue()).resolves.toBe(
          service.site.url(first),
        );
        await page.locator('#name').fill('Shop');
        await page.getByTestId('site-form').getByRole('button').click();
        await page.getByTestId('site-page').waitFor();
        await expect(page.locator('h1').innerText()).resolves.toBe('Shop');

        // Remove the second, after its confirmation step.
        await page.goto(secondPage);
        await page.getByTestId('remove-site').getByRole('button').click();
        await page.getByTestId('confirm-remove').waitFor();
        expect(
          await auditEveryAppearance(signUp.page, `${secondPage}/remove`),
          'removal step',
        ).toEqual([]);
        await page.getByTestId('confirm-remove').getByRole('button').click();
        await page.waitForURL(`${origin}/?removed=1`);
        await expect(page.getByTestId('site').count()).resolves.toBe(1);
        await expect(shown(page, 'site-name')).resolves.toBe('Shop');
        expect(signUp.pageErrors).toEqual([]);
      } finally {
        await viewer?.close();
        await signUp.context.close();
      }
    },
    JOURNEY_TIMEOUT,
  );

  it(
    'alerts where people work: add a webhook channel on / (a Slack URL refused first), see its secret once, send a test alert, narrow it to the watched site (no site ticked refused first), add an address and ask for its link again too soon, and a real "down" reaches the webhook signed; axe-core finds nothing on the refused forms, the channel pages and the list',
    async () => {
      const { service } = suite;
      const { origin } = service.server;
      const watched = 31;
      // A receiver on loopback, named site.test as the monitor resolves it.
      const receiver = await startReceiver(() => ({ status: 204 }));
      const received = receiver.requests;
      const hookUrl = receiver.url('/hook', 'site.test');
      const signUp = await openSignUpPage(suite.browser, origin);
      let viewer: BrowserContext | undefined;
      try {
        const entry = validEntry({ url: service.site.url(watched) });
        await fillSignUpForm(signUp.page, entry);
        await submitButton(signUp.page).click();
        await signUp.page.waitForURL(`${origin}/`);
        viewer = await suite.browser.newContext({
          viewport: DESKTOP,
          javaScriptEnabled: false,
        });
        await viewer.addCookies(await signUp.context.cookies());
        const page = await viewer.newPage();
        await page.goto((await service.confirmationLink(entry.email)).href);
        await page.getByTestId('link-continue').click();
        await page.waitForURL(`${origin}/`);
        await service.checksAfter(0);

        // A Slack channel whose URL is not Slack's: refused, as typed.
        await page.getByTestId('add-channel').click();
        const form = page.getByTestId('channel-form');
        await form.waitFor();
        await page.locator('select[name=kind]').selectOption('slack');
        await page.locator('input[name=target]').fill(hookUrl);
        await form.locator('button[type=submit]').click();
        await page.getByTestId('error-summary').waitFor();
        await expect(
          page.locator('input[name=target]').inputValue(),
        ).resolves.toBe(hookUrl);
        expect(
          await auditRefusal(
            signUp.page,
            `${origin}/channels/new`,
            'channel-form',
            async () => {
              await signUp.page
                .locator('select[name=kind]')
                .selectOption('slack');
              await signUp.page.locator('input[name=target]').fill(hookUrl);
            },
          ),
          'refused channel form',
        ).toEqual([]);

        // As a webhook: made, its secret shown once.
        await page.locator('select[name=kind]').selectOption('webhook');
        await page.locator('input[name=target]').fill(hookUrl);
        await submit(page, 'channel-form');
        await page.getByTestId('channel-page').waitFor();
        const secret = await shown(page, 'channel-secret');
        expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
        const channelPage = page.url();
        await page.reload();
        await expect(page.getByTestId('channel-secret').count()).resolves.toBe(
          0,
        );
        // The URL is a secret: masked once saved.
        expect(await page.content()).not.toContain('/hook');

        // A test alert, delivered at once, signed.
        await page.getByTestId('test-channel').locator('button').click();
        await page.getByTestId('channel-test-result').waitFor();
        await expect(shown(page, 'channel-test-result')).resolves.toMatch(
          /Delivered: HTTP 204/,
        );
        const hook = new Webhook(secret);
        const verified = (index: number) => {
          const one = received[index];
          if (!one) throw new Error(`no request ${index}`);
          return hook.verify(
            one.body,
            Object.fromEntries(
              Object.entries(one.headers).map(([key, value]) => [
                key,
                String(value),
              ]),
            ),
          ) as { type: string; site?: { url: string } };
        };
        expect(verified(0).type).toBe('test');
        expect(
          await auditEveryAppearance(signUp.page, channelPage),
          'channel page',
        ).toEqual([]);
        expect(
          await auditEveryAppearance(signUp.page, `${origin}/`, 'Up'),
          'list with a channel',
        ).toEqual([]);
        await page.goto(`${origin}/`);
        await expect(shown(page, 'channel-kind')).resolves.toBe('Webhook');
        await expect(shown(page, 'channel-state')).resolves.toBe('Working');

        // Narrowed on its page to the watched site: "only these sites"
        // with none ticked is refused, as chosen; then saved.
        await page.goto(channelPage);
        await page.locator('#sites-chosen').check();
        await submit(page, 'edit-channel');
        await page.getByTestId('error-summary').waitFor();
        await expect(page.locator('#sites-chosen').isChecked()).resolves.toBe(
          true,
        );
        expect(
          await auditRefusal(signUp.page, channelPage, 'edit-channel', () =>
            signUp.page.locator('#sites-chosen').check(),
          ),
          'refused sites form',
        ).toEqual([]);
        await page.locator('input[name=site]').check();
        await submit(page, 'edit-channel');
        await page.getByTestId('channel-note').waitFor();
        await expect(shown(page, 'channel-sites')).resolves.toBe(
          new URL(service.site.url(watched)).host,
        );

        // An address waits for its confirmation: "Send the link again"
        // within a minute of its link says why nothing was sent.
        await page.goto(`${origin}/channels/new`);
        await page.locator('select[name=kind]').selectOption('email');
        await page.locator('input[name=target]').fill(`friend-${entry.email}`);
        await submit(page, 'channel-form');
        await page.getByTestId('channel-page').waitFor();
        await submit(page, 'resend-confirmation');
        await expect(shown(page, 'resend-result')).resolves.toMatch(
          /^Not sent: a link went to this address less than a minute ago/,
        );
        expect(
          await auditEveryAppearance(signUp.page, page.url()),
          'address waiting',
        ).toEqual([]);

        // The site goes down: the webhook hears of it, signed.
        service.site.set(watched, 'fail');
        await service.checksAfter(TEST_INTERVAL_MS);
        await service.checksAfter(TEST_INTERVAL_MS / 3);
        await expect
          .poll(() => received.length, { timeout: 20_000 })
          .toBeGreaterThanOrEqual(2);
        const down = verified(1);
        expect(down.type).toBe('site.down');
        expect(down.site?.url).toBe(service.site.url(watched));
        expect(signUp.pageErrors).toEqual([]);
      } finally {
        service.site.set(watched, 'up');
        await viewer?.close();
        await signUp.context.close();
        await receiver.close();
      }
    },
    JOURNEY_TIMEOUT,
  );
});
