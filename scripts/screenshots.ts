/**
 * `npm run screenshots`: builds the page, serves it with the local API, and
 * saves a PNG of each state a visitor can see (empty, client-side errors,
 * submitting, each server error, the consent modal on arrival and reopened
 * from the settings) at a phone and a desktop width into
 * `test-results/screenshots/`, for people to look at.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import buildPage from './page/buildPage';
import { launchChromium } from './engines';
import { PROJECT_ROOT } from './page/paths';
import {
  DESKTOP,
  PHONE,
  fillSignUpForm,
  openSignUpPage,
  submitButton,
  type OpenOptions,
  validEntry,
} from './page/signUpPage';
import { startTestServer } from './page/testServer';

const OUT_DIR = resolve(PROJECT_ROOT, 'test-results/screenshots');
// 320 CSS px is WCAG 1.4.10's reflow width; 640 × 450 is 1280 × 900 at 200 % zoom.
const VIEWPORTS = {
  phone: PHONE,
  desktop: DESKTOP,
  narrow320: { width: 320, height: 640 },
  zoom200: { width: 640, height: 450 },
} as const;

buildPage();
mkdirSync(OUT_DIR, { recursive: true });
const browser = await launchChromium();
const server = await startTestServer({ rateLimit: 1000 });
const limited = await startTestServer({ rateLimit: 1 });

async function shoot(
  name: string,
  origin: string,
  act: (page: Page) => Promise<void>,
  options: Omit<OpenOptions, 'viewport'> = {},
) {
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    const { context, page } = await openSignUpPage(browser, origin, {
      ...options,
      viewport,
    });
    await act(page);
    const path = resolve(OUT_DIR, `${name}-${size}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(path);
    await context.close();
  }
}

await shoot('empty', server.origin, async () => {});
await shoot('focus-visible', server.origin, async (page) => {
  // Keyboard focus: the brand link, then the name field.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
});
await shoot('focus-summary-link', server.origin, async (page) => {
  await page.locator('#signup-form button[type=submit]').focus();
  await page.keyboard.press('Enter');
  await page.locator('#error-summary').waitFor();
  await page.keyboard.press('Tab');
});
await shoot(
  'consent-modal',
  server.origin,
  async (page) => {
    await page.getByTestId('consent-modal').waitFor();
  },
  { query: '?utm_source=google' },
);
await shoot(
  'consent-settings',
  server.origin,
  async (page) => {
    await page.getByTestId('consent-settings').click();
    await page.getByTestId('consent-modal').waitFor();
  },
  { storedConsent: '1' },
);
await shoot('client-errors', server.origin, async (page) => {
  await fillSignUpForm(page, { email: 'ada@', url: 'localhost:3000' });
  await submitButton(page).click();
  await page.locator('#name-error').waitFor();
});
await shoot('submitting', server.origin, async (page) => {
  await page.route('**/2/account/signup/', () => new Promise(() => {}));
  await fillSignUpForm(page, validEntry());
  await submitButton(page).click();
  await page.getByRole('button', { name: 'Creating your account…' }).waitFor();
});
await shoot('error-invalid-name', server.origin, async (page) => {
  await fillSignUpForm(page, validEntry({ name: 'Visit www.spam.example' }));
  await submitButton(page).click();
  await page.locator('#name-error').waitFor();
});
const taken = validEntry();
await shoot('error-general', server.origin, async (page) => {
  await fillSignUpForm(page, taken);
  await submitButton(page).click();
  await page
    .getByTestId('error-general')
    .or(page.locator('h1:text("Welcome")'))
    .waitFor();
  if (page.url().endsWith('/')) {
    await page.goto(`${server.origin}/signup`);
    await page.getByTestId('fake-captcha').waitFor();
    await fillSignUpForm(page, taken);
    await submitButton(page).click();
    await page.getByTestId('error-general').waitFor();
  }
});
await shoot('error-rate-limit', limited.origin, async (page) => {
  for (;;) {
    await fillSignUpForm(page, validEntry());
    await submitButton(page).click();
    await page
      .getByTestId('error-rate-limit')
      .or(page.locator('h1:text("Welcome")'))
      .waitFor();
    if (!page.url().endsWith('/')) return;
    await page.goto(`${limited.origin}/signup`);
    await page.getByTestId('fake-captcha').waitFor();
  }
});

await Promise.all([browser.close(), server.close(), limited.close()]);
