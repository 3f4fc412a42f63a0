/**
 * Drives the sign-up page in Chromium through the test selectors of docs/contract.md
 * ("Test selectors"), with Google's reCAPTCHA script replaced by the local fake.
 */
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { SIGN_UP_PATH } from '../../contract/signUp';
import { useFakeRecaptcha } from './fakeRecaptcha';
import { useFakeTag } from './fakeTag';
import { GPC_HEADER, GPC_INIT_SCRIPT, type GpcMode } from './gpc';
import { TEST_CONSENT_REVISION } from './paths';

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Every sign-up request the page sent, in order. */
  signUpRequests: Request[];
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
  /** How many requests went to the tracking tag's URL so far. */
  tagRequests: () => number;
}

export interface OpenOptions {
  /** The address's query, e.g. `?utm_source=google`. */
  query?: string;
  viewport?: { width: number; height: number };
  /** A `Vigil_COOKIE_CONSENT` value stored before the visit. */
  storedConsent?: string;
  /**
   * The `Vigil_CONSENT_REVISION` stored with it (ADR-0067): default the test
   * page's `CONSENT_REVISION`; null for none (a choice stored before
   * revisions).
   */
  storedRevision?: string | null;
  /** The browser sends Global Privacy Control, and how (ADR-0073, ADR-0074). */
  gpc?: GpcMode;
}

export async function openSignUpPage(
  browser: Browser,
  origin: string,
  {
    query = '',
    viewport = DESKTOP,
    storedConsent,
    storedRevision = String(TEST_CONSENT_REVISION),
    gpc,
  }: OpenOptions = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({
    viewport,
    // The HTTPS test server's certificate is self-signed.
    ignoreHTTPSErrors: true,
    ...(gpc === 'header' && {
      extraHTTPHeaders: { [GPC_HEADER.name]: GPC_HEADER.value },
    }),
  });
  if (gpc === 'property') await context.addInitScript(GPC_INIT_SCRIPT);
  if (storedConsent !== undefined) {
    await context.addCookies([
      { name: 'Vigil_COOKIE_CONSENT', value: storedConsent, url: origin },
      ...(storedRevision === null
        ? []
        : [
            {
              name: 'Vigil_CONSENT_REVISION',
              value: storedRevision,
              url: origin,
            },
          ]),
    ]);
  }
  const tagRequests = await useFakeTag(context);
  const page = await context.newPage();
  await useFakeRecaptcha(page);
  const signUpRequests: Request[] = [];
  const pageErrors: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === SIGN_UP_PATH) {
      signUpRequests.push(request);
    }
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${origin}/signup${query}`);
  await page.getByTestId('fake-captcha').waitFor();
  return { context, page, signUpRequests, pageErrors, tagRequests };
}

export const DESKTOP = { width: 1280, height: 900 };
/** WCAG 1.4.10's reflow width, 320 CSS px (docs/accessibility.md). */
export const REFLOW = { width: 320, height: 640 };
export const PHONE = { width: 375, height: 812 };

export interface FormEntry {
  name?: string;
  email?: string;
  url?: string;
  newsletter?: boolean;
  tos?: boolean;
  captcha?: boolean;
}

/** Fills the form like a visitor; fields left out are left alone. */
export async function fillSignUpForm(page: Page, entry: FormEntry) {
  for (const field of ['name', 'email', 'url'] as const) {
    const value = entry[field];
    if (value !== undefined)
      await page.locator(`input[name=${field}]`).fill(value);
  }
  if (entry.newsletter) await page.locator('input[name=newsletter]').check();
  if (entry.tos) await page.locator('input[name=tos]').check();
  if (entry.captcha) await page.getByTestId('fake-captcha').check();
}

/**
 * The values the text fields hold now, as the visitor sees them.
 *
 * @returns [name, e-mail address, URL]
 */
export function typedValues(page: Page): Promise<string[]> {
  return Promise.all(
    (['name', 'email', 'url'] as const).map((field) =>
      page.locator(`input[name=${field}]`).inputValue(),
    ),
  );
}

export function submitButton(page: Page) {
  return page.locator('#signup-form button[type=submit]');
}

/** How many times the page reset the (fake) captcha widget. */
export function captchaResets(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      (window as unknown as { __fakeCaptcha: { state: { resets: number } } })
        .__fakeCaptcha.state.resets,
  );
}

let accounts = 0;
/** A valid form with an e-mail address no earlier test used. */
export function validEntry(overrides: FormEntry = {}): Required<FormEntry> {
  accounts += 1;
  return {
    name: 'Ada Lovelace',
    email: `ada.${process.pid}.${accounts}@example.com`,
    url: 'example.com',
    newsletter: false,
    tos: true,
    captcha: true,
    ...overrides,
  };
}

/**
 * The page's fetches of files matching `pattern` from now on, in order. A
 * chunk is fetched, then imported (src/platform/chunkLoader.ts): from the HTTP
 * cache, or, where routing turns the cache off as here, by a request of
 * its own, which is not a fetch and is not counted.
 */
export function chunkFetches(page: Page, pattern: RegExp): Request[] {
  const seen: Request[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'fetch' && pattern.test(request.url())) {
      seen.push(request);
    }
  });
  return seen;
}
