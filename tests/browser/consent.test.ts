/**
 * Cookie consent, the tracking tag and the campaign cookie in Chromium
 * (R4.7 to R4.12, R9.1 and R9.3 in docs/requirements.md), with the tag's
 * URL served by a local fake and its requests counted on the network. The
 * dialog's focus handling and the cookies on the product domain are tested
 * in every engine (tests/browser/engines.test.ts).
 */
import type { Browser, BrowserContext, Cookie, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { FAKE_TAG_COOKIES } from '../../harness/page/fakeTag';
import { TEST_CONSENT_REVISION } from '../../harness/page/paths';
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

const DAY_SECONDS = 24 * 60 * 60;
const TAG = 'script[data-testid=tracking-tag]';

let browser: Browser;
let server: TestServer;

beforeAll(async () => {
  [browser, server] = await Promise.all([launchChromium(), startTestServer()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.close()]);
});

const modal = (page: Page) => page.getByTestId('consent-modal');
const settingsLink = (page: Page) => page.getByTestId('consent-settings');

async function cookie(context: BrowserContext, name: string) {
  return (await context.cookies()).filter((c) => c.name === name);
}

function expectLifetime(cookie: Cookie | undefined, days: number) {
  const lifetime = (cookie?.expires ?? 0) - Date.now() / 1000;
  expect(lifetime).toBeGreaterThan(days * DAY_SECONDS - 120);
  expect(lifetime).toBeLessThanOrEqual(days * DAY_SECONDS + 5);
}

/** Lets any request the page might still make happen before we count. */
const quietly = (page: Page) => page.waitForTimeout(300);

describe('the modal opens on arrival only from google or microsoft', () => {
  it.each([
    ['?utm_source=google', true],
    ['?utm_source=microsoft', true],
    ['?utm_source=newsletter', false],
    ['?utm_source=bing', false],
    ['', false],
  ])('%s: open %s', async (query, open) => {
    const { context, page, tagRequests } = await openSignUpPage(
      browser,
      server.origin,
      { query },
    );
    await quietly(page);
    await expect(modal(page).isVisible()).resolves.toBe(open);
    await expect(settingsLink(page).count()).resolves.toBe(0);
    expect(tagRequests()).toBe(0);
    await expect(page.locator(TAG).count()).resolves.toBe(0);
    await context.close();
  });

  it.each([
    ['1', 1],
    ['0', 0],
  ])(
    'stored choice %s from google: closed, settings link shown',
    async (storedConsent, tagLoads) => {
      const { context, page, tagRequests } = await openSignUpPage(
        browser,
        server.origin,
        { query: '?utm_source=google', storedConsent },
      );
      await settingsLink(page).waitFor();
      await quietly(page);
      await expect(modal(page).count()).resolves.toBe(0);
      expect(tagRequests()).toBe(tagLoads);
      await expect(page.locator(TAG).count()).resolves.toBe(tagLoads);
      await context.close();
    },
  );
});

describe('a policy revision (issue 23, ADR-0067)', () => {
  it('an accept stored without the current revision is asked again; the tag waits for a new accept', async () => {
    const { context, page, tagRequests } = await openSignUpPage(
      browser,
      server.origin,
      { storedConsent: '1', storedRevision: null },
    );
    // No campaign in the address, and still the modal opens by itself.
    await modal(page).waitFor();
    await quietly(page);
    expect(tagRequests()).toBe(0);
    await expect(page.locator(TAG).count()).resolves.toBe(0);
    await expect(settingsLink(page).count()).resolves.toBe(0);

    await page.getByTestId('consent-accept').click();
    await page.locator(TAG).waitFor({ state: 'attached' });
    expect(tagRequests()).toBe(1);
    const [consent] = await cookie(context, 'Vigil_COOKIE_CONSENT');
    const [revision] = await cookie(context, 'Vigil_CONSENT_REVISION');
    expect(consent?.value).toBe('1');
    // The test page's CONSENT_REVISION, with the consent cookie's attributes.
    expect(revision?.value).toBe(String(TEST_CONSENT_REVISION));
    expect(revision?.sameSite).toBe(consent?.sameSite);
    expect(revision?.path).toBe(consent?.path);
    expect(revision?.domain).toBe(consent?.domain);
    expectLifetime(revision, 365);
    await context.close();
  });
});

describe('proof of consent (issue 23, ADR-0068)', () => {
  it('each choice is sent to POST /2/consent/ with the consent id, and the service stores it', async () => {
    const { context, page } = await openSignUpPage(browser, server.origin, {
      query: '?utm_source=google&utm_campaign=spring',
    });
    const sent: { body: string; status: number | undefined }[] = [];
    page.on('requestfinished', (request) => {
      if (new URL(request.url()).pathname !== '/2/consent/') return;
      void request.response().then((response) =>
        sent.push({
          body: request.postData() ?? '',
          status: response?.status(),
        }),
      );
    });
    await modal(page).waitFor();
    await page.getByTestId('consent-accept').click();
    await expect.poll(() => sent.length).toBe(1);
    await settingsLink(page).click();
    await page.getByTestId('consent-reject').click();
    await expect.poll(() => sent.length).toBe(2);

    const [id] = await cookie(context, 'Vigil_CONSENT_ID');
    const [consent] = await cookie(context, 'Vigil_COOKIE_CONSENT');
    expect(id?.value).toMatch(/^[\da-f]{8}-[\da-f]{4}-4[\da-f]{3}-/);
    // The consent cookie's attributes.
    expect(id?.sameSite).toBe(consent?.sameSite);
    expect(id?.domain).toBe(consent?.domain);
    expectLifetime(id, 365);
    expect(
      sent.map(({ body, status }) => ({
        fields: Object.fromEntries(new URLSearchParams(body)),
        status,
      })),
    ).toEqual([
      {
        fields: {
          consent_id: id?.value,
          choice: '1',
          revision: String(TEST_CONSENT_REVISION),
          source: 'modal',
          path: '/signup',
        },
        status: 204,
      },
      {
        fields: {
          consent_id: id?.value,
          choice: '0',
          revision: String(TEST_CONSENT_REVISION),
          source: 'settings',
          path: '/signup',
        },
        status: 204,
      },
    ]);
    // Nothing left to send again.
    await expect(
      page.evaluate(() => localStorage.getItem('Vigil_CONSENT_PENDING')),
    ).resolves.toBeNull();
    await context.close();
  });

  it('is recorded, and the tag loads, on a page that is not a secure context (plain http to a host other than localhost, without crypto.randomUUID)', async () => {
    const plain = await startTestServer({ plainHttp: true });
    try {
      const { context, page, pageErrors } = await openSignUpPage(
        browser,
        plain.origin,
        { query: '?utm_source=google' },
      );
      await expect(
        page.evaluate(() => [isSecureContext, typeof crypto.randomUUID]),
      ).resolves.toEqual([false, 'undefined']);
      const recorded = page.waitForResponse(
        (response) => new URL(response.url()).pathname === '/2/consent/',
      );
      await modal(page).waitFor();
      await page.getByTestId('consent-accept').click();
      const response = await recorded;
      expect(response.status()).toBe(204);
      const fields = new URLSearchParams(response.request().postData() ?? '');
      // A version 4 UUID (RFC 9562 §5.4): version nibble 4, variant 10xx.
      expect(fields.get('consent_id')).toMatch(
        /^[\da-f]{8}-[\da-f]{4}-4[\da-f]{3}-[89ab][\da-f]{3}-[\da-f]{12}$/,
      );
      expect(fields.get('choice')).toBe('1');
      await page.locator(TAG).waitFor({ state: 'attached' });
      expect(pageErrors).toEqual([]);
      await context.close();
    } finally {
      await plain.close();
    }
  });

  it.each([
    ['the service answered 503 to', 503],
    ['the service answered 429 to', 429],
    ['that never reached the service', 0],
  ])(
    'a record %s is kept, and sent again on the next load',
    async (_what, status) => {
      const { context, page } = await openSignUpPage(browser, server.origin, {
        query: '?utm_source=google',
      });
      // The service cannot store records (or cannot be reached) for now.
      await page.route('**/2/consent/', (route) =>
        status === 0
          ? route.abort('failed')
          : route.fulfill({
              status,
              contentType: 'application/json',
              body: '{}',
            }),
      );
      await modal(page).waitFor();
      await page.getByTestId('consent-accept').click();
      await expect
        .poll(() =>
          page.evaluate(() => localStorage.getItem('Vigil_CONSENT_PENDING')),
        )
        .toContain('"choice":"accepted"');
      // The choice stands all the same.
      await page.locator(TAG).waitFor({ state: 'attached' });

      await page.unroute('**/2/consent/');
      const resent = page.waitForRequest(
        (request) => new URL(request.url()).pathname === '/2/consent/',
      );
      await page.reload();
      const request = await resent;
      expect(
        Object.fromEntries(new URLSearchParams(request.postData() ?? '')),
      ).toMatchObject({ choice: '1', source: 'modal' });
      await expect
        .poll(() =>
          page.evaluate(() => localStorage.getItem('Vigil_CONSENT_PENDING')),
        )
        .toBeNull();
      await context.close();
    },
  );
});

describe('accept and reject', () => {
  it('no tag before accept; accept loads it once, and again after a reload', async () => {
    const { context, page, tagRequests } = await openSignUpPage(
      browser,
      server.origin,
      { query: '?utm_source=google' },
    );
    await modal(page).waitFor();
    await quietly(page);
    expect(tagRequests()).toBe(0);
    await expect(page.locator(TAG).count()).resolves.toBe(0);

    await page.getByTestId('consent-accept').click();
    await expect
      .poll(() =>
        page.evaluate(() => (window as { __tagRuns?: number }).__tagRuns),
      )
      .toBe(1);
    await quietly(page);
    expect(tagRequests()).toBe(1);
    await expect(page.locator(TAG).count()).resolves.toBe(1);
    await expect(modal(page).count()).resolves.toBe(0);
    await settingsLink(page).waitFor();

    const [consent] = await cookie(context, 'Vigil_COOKIE_CONSENT');
    expect(consent?.value).toBe('1');
    expect(consent?.sameSite).toBe('Strict');
    expect(consent?.secure).toBe(false); // localhost
    expect(consent?.path).toBe('/');
    expectLifetime(consent, 365);

    await page.reload();
    await page.locator(TAG).waitFor({ state: 'attached' });
    await quietly(page);
    expect(tagRequests()).toBe(2);
    await expect(page.locator(TAG).count()).resolves.toBe(1);
    await expect(modal(page).count()).resolves.toBe(0);
    await context.close();
  });

  it('reject after accept removes the tag, deletes its cookies, and loads it no more', async () => {
    const { context, page, tagRequests } = await openSignUpPage(
      browser,
      server.origin,
      { query: '?utm_source=microsoft' },
    );
    await context.addCookies([
      { name: 'keep_me', value: '1', url: server.origin },
    ]);
    await page.getByTestId('consent-accept').click();
    await expect
      .poll(
        async () =>
          (await context.cookies()).filter((c) => c.name.startsWith('_'))
            .length,
      )
      .toBe(FAKE_TAG_COOKIES.length);

    await settingsLink(page).click();
    await page.getByTestId('consent-reject').click();
    await expect(page.locator(TAG).count()).resolves.toBe(0);
    const names = (await context.cookies()).map((c) => c.name).sort();
    expect(names).toEqual([
      'Vigil_CONSENT_ID',
      'Vigil_CONSENT_REVISION',
      'Vigil_COOKIE_CONSENT',
      'keep_me',
    ]);
    const [consent] = await cookie(context, 'Vigil_COOKIE_CONSENT');
    expect(consent?.value).toBe('0');

    const before = tagRequests();
    await page.reload();
    await settingsLink(page).waitFor();
    await quietly(page);
    expect(tagRequests()).toBe(before);
    await expect(page.locator(TAG).count()).resolves.toBe(0);
    await context.close();
  });

  it('without TRACKING_TAG_URL, choices are stored and nothing loads', async () => {
    const untagged = await startTestServer({ build: 'untagged' });
    try {
      const { context, page, tagRequests } = await openSignUpPage(
        browser,
        untagged.origin,
        {
          query: '?utm_source=google',
        },
      );
      await page.getByTestId('consent-accept').click();
      await settingsLink(page).waitFor();
      await quietly(page);
      const [consent] = await cookie(context, 'Vigil_COOKIE_CONSENT');
      expect(consent?.value).toBe('1');
      expect(tagRequests()).toBe(0);
      await expect(page.locator('script[data-testid]').count()).resolves.toBe(
        0,
      );
      await context.close();
    } finally {
      await untagged.close();
    }
  });
});

describe('the settings link and the dialog', () => {
  it('reopens the modal with the current choice; closing keeps it', async () => {
    const { context, page, tagRequests } = await openSignUpPage(
      browser,
      server.origin,
      {
        storedConsent: '1',
      },
    );
    await settingsLink(page).click();
    await modal(page).waitFor();
    await expect(modal(page).textContent()).resolves.toContain(
      'You have accepted marketing cookies.',
    );
    await page
      .getByRole('button', { name: 'Close and keep my choice' })
      .click();
    await expect(modal(page).count()).resolves.toBe(0);
    const [consent] = await cookie(context, 'Vigil_COOKIE_CONSENT');
    expect(consent?.value).toBe('1');
    expect(tagRequests()).toBe(1);
    await expect(page.locator(TAG).count()).resolves.toBe(1);
    await context.close();
  });
  it('is modal: a click on the page behind reaches nothing and does not close it; Escape does, giving focus back', async () => {
    const { context, page } = await openSignUpPage(browser, server.origin, {
      storedConsent: '0',
    });
    const name = page.locator('#signup-form input[name="name"]');
    const box = await name.boundingBox();
    if (!box) throw new Error('no name field');
    await settingsLink(page).click();
    await modal(page).waitFor();
    await expect(
      modal(page).evaluate((dialog) => dialog.matches(':modal')),
    ).resolves.toBe(true);
    // The page behind is inert (HTML, "blocked by a modal dialog"); the
    // pointer lands on the dialog's ::backdrop, which does not close it
    // (no light dismiss: only the machine does).
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    const dialogBox = await modal(page).boundingBox();
    // The point is on the backdrop, beside the dialog.
    expect(
      dialogBox &&
        x >= dialogBox.x &&
        x <= dialogBox.x + dialogBox.width &&
        y >= dialogBox.y &&
        y <= dialogBox.y + dialogBox.height,
    ).toBe(false);
    await page.mouse.click(x, y);
    await page.keyboard.type('Ada');
    await expect(name.inputValue()).resolves.toBe('');
    await expect(modal(page).isVisible()).resolves.toBe(true);
    await expect(
      page.evaluate(() => document.activeElement?.closest('dialog') !== null),
    ).resolves.toBe(true);
    await page.keyboard.press('Escape');
    await expect(modal(page).count()).resolves.toBe(0);
    await expect(
      page.evaluate(() => document.activeElement?.getAttribute('data-testid')),
    ).resolves.toBe('consent-settings');
    const [consent] = await cookie(context, 'Vigil_COOKIE_CONSENT');
    expect(consent?.value).toBe('0');
    await context.close();
  });
});

describe('the campaign cookie', () => {
  it('is written on load (30 days), last touch wins, and the sign-up carries it', async () => {
    const first = await openSignUpPage(browser, server.origin, {
      query: '?utm_campaign=spring',
    });
    const [spring] = await cookie(first.context, 'Vigil_CAMPAIGN');
    expect(spring).toMatchObject({
      value: 'spring',
      sameSite: 'Strict',
      path: '/',
      domain: 'localhost',
      secure: false,
    });
    expectLifetime(spring, 30);

    const page = first.page;
    await page.goto(`${server.origin}/signup?utm_campaign=summer%20sale`);
    await page.getByTestId('fake-captcha').waitFor();
    await page.goto(`${server.origin}/signup?utm_source=newsletter`);
    await page.getByTestId('fake-captcha').waitFor();
    const [summer] = await cookie(first.context, 'Vigil_CAMPAIGN');
    expect(summer?.value).toBe('summer%20sale');

    await fillSignUpForm(page, validEntry());
    await submitButton(page).click();
    await page.waitForURL(`${server.origin}/`);
    const sent = new URLSearchParams(
      first.signUpRequests.at(-1)?.postData() ?? '',
    );
    expect(sent.get('utm_campaign')).toBe('summer sale');
    await first.context.close();
  });
});
