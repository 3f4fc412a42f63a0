/**
 * Error reporting in Chromium (R7.4, ADR-0037): with SENTRY_DSN pointed at a
 * local recorder (Playwright `route` on the DSN's host), an unexpected
 * failure arrives as a Sentry envelope carrying nothing the visitor typed;
 * without a DSN, or before any error, the SDK's chunk is never fetched.
 */
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { TEST_SENTRY_DSN } from '../../harness/page/paths';
import {
  fillSignUpForm,
  openSignUpPage,
  submitButton,
  validEntry,
} from '../../harness/page/signUpPage';
import {
  startTestServer,
  type TestServer,
} from '../../harness/page/testServer';

const SENTRY_ORIGIN = new URL(TEST_SENTRY_DSN).origin;

let browser: Browser;
let withDsn: TestServer;
let withoutDsn: TestServer;

beforeAll(async () => {
  [browser, withDsn, withoutDsn] = await Promise.all([
    launchChromium(),
    startTestServer(),
    startTestServer({ build: 'untagged' }),
  ]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), withDsn?.close(), withoutDsn?.close()]);
});

/** Records every envelope sent to the DSN's host. */
async function recordReports(page: Page): Promise<string[]> {
  const envelopes: string[] = [];
  await page.route(`${SENTRY_ORIGIN}/**`, async (route) => {
    envelopes.push(route.request().postData() ?? '');
    await route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: '{}',
    });
  });
  return envelopes;
}

const scripts = (requests: Request[]) =>
  requests
    .filter((request) => request.resourceType() === 'script')
    .map((request) => new URL(request.url()).pathname)
    .filter((path) => !path.startsWith('/recaptcha/'));

/** The visitor's typed values, in every form they could leak in. */
function typedForms(entry: { name: string; email: string; url: string }) {
  return [entry.name, entry.email, entry.url].flatMap((value) => [
    value,
    encodeURIComponent(value),
  ]);
}

describe('error reports', () => {
  it('a network failure is reported, without anything the visitor typed', async () => {
    const { context, page } = await openSignUpPage(browser, withDsn.origin);
    const requests: Request[] = [];
    page.on('request', (request) => requests.push(request));
    const envelopes = await recordReports(page);
    const entry = validEntry({
      name: 'Quintessa Marlowe-Vance',
      url: 'quintessa-uptime.example',
    });
    await fillSignUpForm(page, entry);
    // Nothing reported, and no SDK, before anything goes wrong.
    expect(scripts(requests).some((path) => path.includes('sentry'))).toBe(
      false,
    );
    await page.route('**/2/account/signup/', (route) => route.abort('failed'));
    await submitButton(page).click();
    await page.getByTestId('error-general').waitFor();
    await expect
      .poll(() => envelopes.length, { timeout: 10_000 })
      .toBeGreaterThan(0);
    const report = envelopes.join('\n');
    expect(report).toContain('sign-up failed: network');
    for (const typed of typedForms(entry)) expect(report).not.toContain(typed);
    await context.close();
  });

  it('an exception nobody handled is reported, scrubbed of e-mail addresses', async () => {
    const { context, page } = await openSignUpPage(browser, withDsn.origin);
    const envelopes = await recordReports(page);
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('view broke for someone@example.org');
      });
    });
    await expect
      .poll(() => envelopes.length, { timeout: 10_000 })
      .toBeGreaterThan(0);
    const report = envelopes.join('\n');
    expect(report).toContain('view broke for [email]');
    expect(report).not.toContain('someone@example.org');
    await context.close();
  });

  it('without SENTRY_DSN, a failure neither loads the SDK nor sends anything', async () => {
    const { context, page } = await openSignUpPage(browser, withoutDsn.origin);
    const requests: Request[] = [];
    page.on('request', (request) => requests.push(request));
    const envelopes = await recordReports(page);
    await fillSignUpForm(page, validEntry());
    await page.route('**/2/account/signup/', (route) => route.abort('failed'));
    await submitButton(page).click();
    await page.getByTestId('error-general').waitFor();
    await page.waitForTimeout(500);
    expect(envelopes).toEqual([]);
    expect(scripts(requests).some((path) => path.includes('sentry'))).toBe(
      false,
    );
    await context.close();
  });
});
