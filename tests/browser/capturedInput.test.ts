/**
 * The page before its script runs, on a slow connection: the app's script
 * is held back by a route until the test lets it through, while the
 * visitor uses the prerendered form. What they typed and ticked survives
 * hydration and is what gets sent; a submit (Enter or a click) made before
 * the machine ran is carried out after it, with the errors and the focus
 * of any submit; no request and no address ever carries a field value.
 */
import type { BrowserContext, Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SIGN_UP_PATH } from '../../contract/signUp';
import { useChromiumAndServer } from './support/browserSuite';
import { useFakeRecaptcha } from '../../harness/page/fakeRecaptcha';
import { useFakeTag } from '../../harness/page/fakeTag';
import { DESKTOP, validEntry } from '../../harness/page/signUpPage';

const suite = useChromiumAndServer();

interface HeldVisit {
  context: BrowserContext;
  page: Page;
  /** Lets the app's script through: the page hydrates. */
  releaseApp: () => Promise<void>;
  /** Every URL the page requested or navigated to, in order. */
  urls: string[];
  signUpRequests: Request[];
  /** Console errors and warnings, and uncaught exceptions. */
  problems: string[];
}

/**
 * Opens `/signup{query}` with the page's own scripts held back; resolves
 * once the prerendered form has painted and the app's script was asked for.
 */
async function openWithScriptHeld(query = ''): Promise<HeldVisit> {
  const { origin } = suite.server;
  const context = await suite.browser.newContext({ viewport: DESKTOP });
  await useFakeTag(context);
  const page = await context.newPage();
  await useFakeRecaptcha(page);
  const held: PromiseWithResolvers<void> = Promise.withResolvers();
  await page.route(
    (url) => url.origin === origin && url.pathname.endsWith('.js'),
    async (route) => {
      await held.promise;
      await route.continue();
    },
  );
  const urls: string[] = [];
  const signUpRequests: Request[] = [];
  const problems: string[] = [];
  page.on('request', (request) => {
    urls.push(request.url());
    if (new URL(request.url()).pathname === SIGN_UP_PATH) {
      signUpRequests.push(request);
    }
  });
  page.on('framenavigated', (frame) => urls.push(frame.url()));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      problems.push(`${message.type()}: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  const appRequested = page.waitForRequest(
    (request) =>
      request.url().startsWith(origin) && request.url().endsWith('.js'),
  );
  await page.goto(`${origin}/signup${query}`, {
    waitUntil: 'domcontentloaded',
  });
  await appRequested;
  // A marker that a reload or a navigation would lose.
  await page.evaluate(() => {
    (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
  });
  return {
    context,
    page,
    urls,
    signUpRequests,
    problems,
    releaseApp: async () => {
      held.resolve();
      // The app mounts the captcha once it runs and the browser is idle.
      await page.getByTestId('fake-captcha').waitFor();
    },
  };
}

const sameDocument = (page: Page) =>
  page.evaluate(
    () =>
      (window as unknown as { __sameDocument?: boolean }).__sameDocument ===
      true,
  );

/** The form's messages on show: the fields' error ids, the captcha notice. */
const visibleErrors = (page: Page) =>
  page
    .locator('.field__error, [data-testid=notice-captcha]')
    .evaluateAll((nodes) =>
      nodes.map((node) => node.id || node.getAttribute('data-testid')),
    );

/**
 * Ticks the fake captcha and submits: the page goes to `/`, and exactly
 * one sign-up was sent.
 *
 * @returns the sign-up's form body
 */
async function solveCaptchaAndSubmit(
  visit: HeldVisit,
): Promise<URLSearchParams> {
  await visit.page.getByTestId('fake-captcha').check();
  await visit.page.locator('#signup-form button[type=submit]').click();
  await visit.page.waitForURL(`${suite.server.origin}/`);
  expect(visit.signUpRequests).toHaveLength(1);
  return new URLSearchParams(visit.signUpRequests[0]?.postData() ?? '');
}

/** Asserts that no URL the page touched carries one of `values`. */
function expectNoValueIn(urls: string[], values: string[]) {
  expect(urls.length).toBeGreaterThan(0);
  for (const url of urls) {
    for (const value of values) {
      for (const form of [
        value,
        encodeURIComponent(value),
        new URLSearchParams({ v: value }).toString().slice(2),
      ]) {
        expect(url, `${url} carries "${value}"`).not.toContain(form);
      }
    }
  }
}

/** Whether the error summary ("There is a problem") has the focus. */
const summaryHasFocus = (page: Page) =>
  page.evaluate(
    () =>
      document.activeElement?.textContent?.includes('There is a problem') ===
      true,
  );

/** The text fields' values, as the visitor sees them. */
const fieldValues = (page: Page) =>
  page.evaluate(() =>
    Object.fromEntries(
      ['name', 'email', 'url'].map((name) => [
        name,
        document.querySelector<HTMLInputElement>(`input[name=${name}]`)?.value,
      ]),
    ),
  );

async function typeLikeAVisitor(page: Page, field: string, text: string) {
  const input = page.locator(`#signup-form input[name=${field}]`);
  await input.click();
  await input.pressSequentially(text);
}

describe('before the script runs', () => {
  it('what was typed and ticked survives hydration and is what gets sent', async () => {
    const visit = await openWithScriptHeld();
    const { page } = visit;
    const entry = validEntry({ name: 'Grace Hopper', url: 'hopper.example' });
    await typeLikeAVisitor(page, 'name', entry.name);
    await typeLikeAVisitor(page, 'email', entry.email);
    await typeLikeAVisitor(page, 'url', entry.url);
    await page.locator('input[name=newsletter]').check();
    await page.locator('input[name=tos]').check();

    await visit.releaseApp();
    for (const [field, value] of [
      ['name', entry.name],
      ['email', entry.email],
      ['url', entry.url],
    ] as const) {
      await expect(
        page.locator(`input[name=${field}]`).inputValue(),
      ).resolves.toBe(value);
    }
    await expect(
      page.locator('input[name=newsletter]').isChecked(),
    ).resolves.toBe(true);
    await expect(page.locator('input[name=tos]').isChecked()).resolves.toBe(
      true,
    );
    // No error before the usual rules call for one.
    await expect(visibleErrors(page)).resolves.toEqual([]);

    const body = await solveCaptchaAndSubmit(visit);
    expect(body.get('name')).toBe(entry.name);
    expect(body.get('email')).toBe(entry.email);
    expect(body.get('url')).toBe(`https://${entry.url}`);
    expect(body.get('newsletter')).toBe('1');
    expect(visit.problems).toEqual([]);
    expectNoValueIn(visit.urls, [entry.name, entry.email, entry.url]);
    await visit.context.close();
  });

  it('what was typed over an address prefill wins; the untouched prefill stays', async () => {
    const visit = await openWithScriptHeld(
      '?name=Ada&email=ada%40example.com&url=ada.example',
    );
    const { page } = visit;
    // The prerendered form is empty: the prefill comes with the script.
    await typeLikeAVisitor(page, 'name', 'Grace Hopper');
    await visit.releaseApp();
    // The e-mail and URL come once the form's rules have judged them
    // (ADR-0071).
    await expect
      .poll(() => fieldValues(page))
      .toEqual({
        name: 'Grace Hopper',
        email: 'ada@example.com',
        url: 'ada.example',
      });
    expect(new URL(page.url()).search).toBe('');
    expect(visit.problems).toEqual([]);
    await visit.context.close();
  });

  it('Enter in a field is held, never sent as a GET, and validated once the machine runs', async () => {
    const visit = await openWithScriptHeld();
    const { page } = visit;
    await typeLikeAVisitor(page, 'name', 'Ada Lovelace');
    await typeLikeAVisitor(page, 'email', 'ada@');
    await page.keyboard.press('Enter');
    // Nothing left the page: same document, same address.
    await page.waitForTimeout(300);
    expect(await sameDocument(page)).toBe(true);
    expect(page.url()).toBe(`${suite.server.origin}/signup`);

    await visit.releaseApp();
    await expect
      .poll(() => visibleErrors(page))
      .toEqual(
        expect.arrayContaining(['email-error', 'url-error', 'tos-error']),
      );
    // As after any submit with errors: the summary takes the focus.
    await expect.poll(() => summaryHasFocus(page)).toBe(true);
    await expect(page.locator('input[name=name]').inputValue()).resolves.toBe(
      'Ada Lovelace',
    );
    await expect(page.locator('input[name=email]').inputValue()).resolves.toBe(
      'ada@',
    );
    expect(visit.signUpRequests).toHaveLength(0);
    expect(await sameDocument(page)).toBe(true);
    expectNoValueIn(visit.urls, ['Ada Lovelace', 'ada@']);
    expect(visit.problems).toEqual([]);
    await visit.context.close();
  });

  it('a click on the button is held and carried out once the machine runs', async () => {
    const visit = await openWithScriptHeld();
    const { page } = visit;
    const entry = validEntry();
    await typeLikeAVisitor(page, 'name', entry.name);
    await typeLikeAVisitor(page, 'email', entry.email);
    await typeLikeAVisitor(page, 'url', entry.url);
    await page.locator('input[name=tos]').check();
    await page.locator('#signup-form button[type=submit]').click();
    await page.waitForTimeout(300);
    expect(await sameDocument(page)).toBe(true);

    await visit.releaseApp();
    // Everything typed is valid; only the captcha, which needs the script,
    // is missing.
    await expect.poll(() => visibleErrors(page)).toEqual(['notice-captcha']);
    await expect.poll(() => summaryHasFocus(page)).toBe(true);

    // The visitor ticks the captcha and submits again: the sign-up is sent.
    const body = await solveCaptchaAndSubmit(visit);
    expect(body.get('email')).toBe(entry.email);
    expectNoValueIn(visit.urls, [entry.name, entry.email]);
    expect(visit.problems).toEqual([]);
    await visit.context.close();
  });
});

describe("the browser's own submission", () => {
  it('is a POST whose body the server never echoes: it answers with the page', async () => {
    const response = await fetch(`${suite.server.origin}/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Ada&email=ada%40example.com',
      redirect: 'manual',
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/signup');
    expect(await response.text()).toBe('');
  });
});
