/**
 * Server and network faults, double submissions and markup in the address,
 * in Chromium against the built page (hardening issue). After every fault:
 * exactly one general error, inputs enabled, the captcha reset, every typed
 * value still there, and a second attempt signs up through the local API.
 */
import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DEADLINE_MS } from '../../src/signUp/signUpClient';
import { useChromiumAndServer } from './support/browserSuite';
import {
  captchaResets,
  fillSignUpForm,
  openSignUpPage,
  submitButton,
  validEntry,
  type FormEntry,
} from '../../harness/page/signUpPage';

const suite = useChromiumAndServer();

/** Holds every sign-up request until the test answers it. */
async function holdSignUpRequests(page: Page): Promise<Route[]> {
  const held: Route[] = [];
  await page.route('**/2/account/signup/', (route) => {
    held.push(route);
  });
  return held;
}

const html = (status: number) => ({
  status,
  contentType: 'text/html',
  body: `<!doctype html><title>${status}</title><h1>${status}</h1>`,
});
const json = (value: unknown) => ({
  status: 200,
  contentType: 'application/json',
  body: JSON.stringify(value),
});

/** How each fault answers the held sign-up request. */
const FAULTS: [string, (route: Route, page: Page) => Promise<void>][] = [
  ['500 with an HTML body', (route) => route.fulfill(html(500))],
  ['502 with an HTML body', (route) => route.fulfill(html(502))],
  [
    '200 with a body that is not JSON',
    (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: 'OK',
      }),
  ],
  [
    'JSON without success',
    (route) =>
      route.fulfill(
        json({ data: { one_time_auth: { token: 't', sid: 's' } } }),
      ),
  ],
  ['success without data', (route) => route.fulfill(json({ success: true }))],
  [
    'success without a token',
    (route) =>
      route.fulfill(
        json({ success: true, data: { one_time_auth: { sid: 's' } } }),
      ),
  ],
  ['the network going away', (route) => route.abort('internetdisconnected')],
  [
    'a reply that never comes (the deadline passes)',
    async (_route, page) => {
      await page.clock.fastForward(DEFAULT_DEADLINE_MS + 1000);
    },
  ],
];

async function typedValues(page: Page) {
  return Promise.all(
    ['name', 'email', 'url'].map((name) =>
      page.locator(`input[name=${name}]`).inputValue(),
    ),
  );
}

async function expectOneGeneralError(
  page: Page,
  entry: Required<FormEntry>,
  resetsBefore: number,
) {
  await page.getByTestId('error-general').waitFor();
  await expect(page.getByTestId('error-rate-limit').count()).resolves.toBe(0);
  await expect(page.locator('[id$="-error"]').count()).resolves.toBe(0);
  await expect(page.getByTestId('notice-captcha').count()).resolves.toBe(0);
  for (const name of ['name', 'email', 'url', 'newsletter', 'tos']) {
    await expect(page.locator(`input[name=${name}]`).isEnabled()).resolves.toBe(
      true,
    );
  }
  await expect(submitButton(page).isEnabled()).resolves.toBe(true);
  await expect(captchaResets(page)).resolves.toBe(resetsBefore + 1);
  await expect(page.getByTestId('fake-captcha').isChecked()).resolves.toBe(
    false,
  );
  await expect(typedValues(page)).resolves.toEqual([
    entry.name,
    entry.email,
    entry.url,
  ]);
  await expect(page.locator('input[name=tos]').isChecked()).resolves.toBe(true);
}

describe('faults: one general error, nothing lost, a second attempt works', () => {
  for (const [fault, answer] of FAULTS) {
    it(fault, async () => {
      const { context, page, signUpRequests, pageErrors } =
        await openSignUpPage(suite.browser, suite.server.origin);
      await page.clock.install();
      const entry = validEntry({
        name: '  Zoë O’Brien ',
        url: ' shop.example.com/health ',
      });
      await fillSignUpForm(page, entry);
      const held = await holdSignUpRequests(page);
      const resets = await captchaResets(page);
      await submitButton(page).click();
      await expect.poll(() => held.length).toBe(1);
      const route = held.shift() as Route;
      await answer(route, page);
      await expectOneGeneralError(page, entry, resets);

      // The second attempt: tick the captcha again, and let the API answer.
      await page.unroute('**/2/account/signup/');
      await page.getByTestId('fake-captcha').check();
      await submitButton(page).click();
      await page.waitForURL(`${suite.server.origin}/`);
      expect(signUpRequests).toHaveLength(2);
      expect(pageErrors).toEqual([]);
      await context.close();
    });
  }

  it('a reply after the visitor tried to change a field changes nothing typed', async () => {
    const { context, page } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    const entry = validEntry();
    await fillSignUpForm(page, entry);
    const held = await holdSignUpRequests(page);
    const resets = await captchaResets(page);
    await submitButton(page).click();
    await expect.poll(() => held.length).toBe(1);
    // Locked while the request runs: typing and clicking do nothing.
    await page.locator('input[name=name]').click({ force: true });
    await page.keyboard.type('XYZ');
    await page.locator('input[name=tos]').click({ force: true });
    await (held.shift() as Route).fulfill(html(503));
    await expectOneGeneralError(page, entry, resets);
    await context.close();
  });
});

describe('double submission sends exactly one request', () => {
  const cases: [string, (page: Page) => Promise<void>][] = [
    ['a double click', (page) => submitButton(page).dblclick()],
    [
      'Enter twice',
      async (page) => {
        await page.locator('input[name=url]').press('Enter');
        await page.locator('input[name=url]').press('Enter');
      },
    ],
    [
      'a click while submitting',
      async (page) => {
        await submitButton(page).click();
        await page
          .getByRole('button', { name: 'Creating your account…' })
          .waitFor();
        await submitButton(page).click({ force: true });
        await page.locator('input[name=email]').press('Enter');
      },
    ],
  ];

  for (const [label, submitTwice] of cases) {
    it(label, async () => {
      const { context, page, signUpRequests } = await openSignUpPage(
        suite.browser,
        suite.server.origin,
      );
      await fillSignUpForm(page, validEntry());
      const held = await holdSignUpRequests(page);
      await submitTwice(page);
      await page.waitForTimeout(300);
      expect(signUpRequests).toHaveLength(1);
      await page.unroute('**/2/account/signup/');
      await (held.shift() as Route).continue();
      await page.waitForURL(`${suite.server.origin}/`);
      expect(signUpRequests).toHaveLength(1);
      await context.close();
    });
  }
});

describe('markup in the address is shown as text and never runs', () => {
  it('name, email and url carrying HTML or script', async () => {
    const name =
      '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
    const query = new URLSearchParams({
      name,
      email: '"><svg onload="window.__xss=3">@example.com',
      url: 'javascript:window.__xss=4',
      utm_campaign: '<script>window.__xss=5</script>',
    });
    const { context, page, pageErrors } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
      {
        query: `?${query}`,
      },
    );
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await expect(page.locator('input[name=name]').inputValue()).resolves.toBe(
      name,
    );
    await expect(page.locator('input[name=email]').inputValue()).resolves.toBe(
      '',
    );
    await expect(page.locator('input[name=url]').inputValue()).resolves.toBe(
      '',
    );
    await page.waitForTimeout(200);
    await expect(
      page.evaluate(() => (window as { __xss?: number }).__xss),
    ).resolves.toBeUndefined();
    await expect(
      page.locator('img[src=x], svg[onload], #signup-form script').count(),
    ).resolves.toBe(0);
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
