/**
 * The alert channels' pages (issue 60) in Chromium, Firefox and WebKit:
 * one definition run per engine (tests/browser/support/engines/), against
 * the real local service with its monitor and mail on loopback
 * (harness/page/monitoredService.ts). The pages are server-rendered forms
 * that need no script; what differs between engines is how each one
 * submits them, focuses the refusal and lays them out. Each engine
 *
 * 1. signs up, confirms the address with the mailed link, and opens the
 *    channel form from `/` (`add-channel`, docs/contract.md);
 * 2. sends a Slack channel whose URL is not Slack's: refused with the
 *    error summary focused (its `autofocus`, HTML "The autofocus
 *    attribute"), the URL kept as typed, nothing sideways at 320 CSS px
 *    (WCAG 1.4.10), no axe-core violation (WCAG 2.2 AA);
 * 3. makes it a webhook: the channel's page shows its `whsec_` secret
 *    once (gone on reload) and masks the URL;
 * 4. sends a test alert: "Delivered: HTTP 204", and the receiver got a body
 *    whose signature `standardwebhooks`' own `verify` accepts, typed
 *    `test`; the channel's page passes axe-core and reflows at 320 px;
 * 5. sees the channel on `/` as a working webhook (axe-core again), then
 *    removes it from its page and is back on `/` without it.
 *
 * Nothing leaves loopback: the receiver listens on 127.0.0.1 under the
 * name `site.test`, which the service's test resolver maps there, and the
 * service's tripwire sees every connection its checks and POSTs open.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { typeInto } from '../../harness/model/visitor';
import {
  startMonitoredService,
  type MonitoredService,
} from '../../harness/page/monitoredService';
import { DESKTOP, REFLOW, validEntry } from '../../harness/page/signUpPage';
import { startReceiver, type Receiver } from '../server/support/outboxService';
import type { EnginePage } from './support/engines/browser';
import { useEngine } from './support/engines/launch';
import { enginesUnderTest } from './support/engines/underTest';
import {
  axeViolations,
  focusedName,
  horizontalOverflow,
  openSignUpPage,
  saveScreenshot,
  using,
  waitFor,
} from './support/engines/visit';

/** A sign-up, a mailed link, ten page loads, three axe-core runs. */
const TIMEOUT = 90_000;
const POLL = { timeout: 10_000 };

/** The visible text of the first element with a test selector, spaces collapsed. */
function shown(page: EnginePage, testId: string): Promise<string | null> {
  return page.evaluate(
    (id: string) =>
      document
        .querySelector(`[data-testid="${id}"]`)
        ?.textContent?.replace(/\s+/g, ' ')
        .trim() ?? null,
    testId,
  );
}

/** Waits for an element with a test selector on the page. */
function waitForTestId(page: EnginePage, testId: string): Promise<void> {
  return waitFor(
    page,
    (id: string) => document.querySelector(`[data-testid="${id}"]`) !== null,
    testId,
  );
}

/**
 * Chooses an option of the channel form's `kind`, as a keyboard or a
 * pointer would leave it (the drivers share no way to open a native
 * select's list): the value set and a `change` event.
 */
function chooseKind(page: EnginePage, kind: string): Promise<void> {
  return page.evaluate((value: string) => {
    const select = document.querySelector<HTMLSelectElement>(
      'select[name="kind"]',
    );
    if (!select) throw new Error('no kind to choose');
    select.value = value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
  }, kind);
}

/** Replaces what the `target` field holds by typing `text` into it. */
async function typeTarget(page: EnginePage, text: string): Promise<void> {
  await page.click('input[name="target"]');
  await page.evaluate(() =>
    document.querySelector<HTMLInputElement>('input[name="target"]')?.select(),
  );
  await page.type(text);
}

/** Axe-core's findings, then the sideways scroll at 320 px; back at the desktop width. */
async function audit(page: EnginePage) {
  const violations = await axeViolations(page);
  await page.setViewport(REFLOW);
  const overflow = await page.evaluate(horizontalOverflow);
  await page.setViewport(DESKTOP);
  return { violations, overflow };
}

const CLEAN = { violations: [], overflow: { scrolls: false, outside: [] } };

describe.each(enginesUnderTest())('%s', (engine) => {
  const suite = useEngine(engine);
  let service: MonitoredService | undefined;
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    [service, receiver] = await Promise.all([
      startMonitoredService(),
      startReceiver(() => ({ status: 204 })),
    ]);
  });
  afterAll(async () => {
    await Promise.all([service?.close(), receiver?.close()]);
  });
  afterEach(() => {
    // No connection the service opened may have tried to leave loopback.
    expect(service?.tripwire.violations).toEqual([]);
  });

  it(
    'a webhook channel: refused as Slack with the summary focused, made with its secret once, tested signed, listed, removed; axe-core and 320 px on each page',
    async () => {
      const running = service;
      if (!running || !receiver) throw new Error('no service');
      const { origin } = running.server;
      const { requests } = receiver;
      const hookUrl = receiver.url('/hook', 'site.test');
      const entry = validEntry({ url: running.site.url(1) });
      const page = await openSignUpPage(suite, origin);
      await using(page, async () => {
        // 1. Sign up, confirm the address, open the channel form.
        for (const field of ['name', 'email', 'url'] as const) {
          await typeInto(page, field, entry[field]);
        }
        await page.click('#signup-form input[name="tos"]');
        await page.click('[data-testid="fake-captcha"]');
        await page.click('#signup-form button[type="submit"]');
        await expect.poll(() => page.url(), POLL).toBe(`${origin}/`);
        await page.goto((await running.confirmationLink(entry.email)).href);
        await page.click('[data-testid="link-continue"]');
        await expect.poll(() => page.url(), POLL).toBe(`${origin}/`);
        await waitForTestId(page, 'add-channel');
        await page.click('a[data-testid="add-channel"]');
        await waitForTestId(page, 'channel-form');

        // 2. A Slack channel whose URL is not Slack's: refused, as typed.
        await chooseKind(page, 'slack');
        await typeTarget(page, hookUrl);
        await page.click(
          'form[data-testid="channel-form"] button[type="submit"]',
        );
        await waitForTestId(page, 'error-summary');
        await expect.poll(() => focusedName(page), POLL).toBe('error-summary');
        await expect(
          page.evaluate(() => [
            document.querySelector<HTMLSelectElement>('select[name="kind"]')
              ?.value,
            document.querySelector<HTMLInputElement>('input[name="target"]')
              ?.value,
          ]),
        ).resolves.toEqual(['slack', hookUrl]);
        await saveScreenshot(page, 'channel-refused');
        expect(await audit(page), 'the refused form').toEqual(CLEAN);

        // 3. As a webhook: made, its secret shown once, its URL masked.
        await chooseKind(page, 'webhook');
        await typeTarget(page, hookUrl);
        await page.click(
          'form[data-testid="channel-form"] button[type="submit"]',
        );
        await waitForTestId(page, 'channel-page');
        const secret = await shown(page, 'channel-secret');
        expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
        await page.reload();
        await waitForTestId(page, 'channel-page');
        await expect(shown(page, 'channel-secret')).resolves.toBeNull();
        await expect(
          page.evaluate(() => document.documentElement.outerHTML),
        ).resolves.not.toContain('/hook');

        // 4. A test alert, delivered at once, signed.
        const before = requests.length;
        await page.click('form[data-testid="test-channel"] button');
        await waitForTestId(page, 'channel-test-result');
        await expect(shown(page, 'channel-test-result')).resolves.toMatch(
          /Delivered: HTTP 204/,
        );
        const test = requests[before];
        if (!test) throw new Error('the receiver got no test alert');
        const verified = new Webhook(secret ?? '').verify(
          test.body,
          Object.fromEntries(
            Object.entries(test.headers).map(([key, value]) => [
              key,
              String(value),
            ]),
          ),
        ) as { type: string };
        expect(verified.type).toBe('test');
        await saveScreenshot(page, 'channel');
        expect(await audit(page), 'the channel’s page').toEqual(CLEAN);
        const channelPage = await page.url();

        // 5. On `/`: a working webhook; removed from its page.
        await page.goto(`${origin}/`);
        await waitForTestId(page, 'channel');
        await expect(shown(page, 'channel-kind')).resolves.toBe('Webhook');
        await expect(shown(page, 'channel-state')).resolves.toBe('Working');
        expect(await audit(page), '/ with a channel').toEqual(CLEAN);
        await page.goto(channelPage);
        await waitForTestId(page, 'remove-channel');
        await page.click('form[data-testid="remove-channel"] button');
        await expect.poll(() => page.url(), POLL).toBe(`${origin}/`);
        await waitFor(
          page,
          () =>
            document.querySelector('[data-testid="add-channel"]') !== null &&
            document.querySelector('[data-testid="channel"]') === null,
        );
        expect(page.uncaughtErrors?.() ?? []).toEqual([]);
      });
    },
    TIMEOUT,
  );
});
