/**
 * The sign-up path end to end: the built page in headless Chromium, the real
 * local API, only Google's captcha script replaced by a local fake.
 */
import type { Cookie, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { messages } from '../../common/validation';
import { useChromiumAndServer } from './support/browserSuite';
import {
  captchaResets,
  fillSignUpForm,
  openSignUpPage,
  submitButton,
  typedValues,
  validEntry,
  type FormEntry,
} from '../../harness/page/signUpPage';
import { startTestServer } from '../../harness/page/testServer';

const suite = useChromiumAndServer();

function cookieNamed(cookies: Cookie[], name: string): Cookie {
  const cookie = cookies.find((c) => c.name === name);
  if (!cookie)
    throw new Error(
      `no cookie ${name} in ${cookies.map((c) => c.name).join(', ')}`,
    );
  return cookie;
}

async function inputsDisabled(page: Page): Promise<boolean[]> {
  return Promise.all(
    ['name', 'email', 'url', 'newsletter', 'tos'].map((name) =>
      page.locator(`input[name=${name}]`).isDisabled(),
    ),
  );
}

describe('a visitor signs up', () => {
  it('posts the R7.1 payload, sets the login cookies and goes to /', async () => {
    const { context, page, signUpRequests, pageErrors } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    const entry = validEntry({
      name: '  Grace Hopper ',
      url: ' status.example.com/health ',
      newsletter: true,
    });
    await fillSignUpForm(page, entry);
    // Pass the real API's answer through, keeping a copy of its body: the
    // page navigates away before Chromium would let us read it.
    let answer:
      { data: { one_time_auth: { token: string; sid: string } } } | undefined;
    await page.route('**/2/account/signup/', async (route) => {
      const response = await route.fetch();
      answer = await response.json();
      await route.fulfill({ response });
    });
    // The cookies as the navigation to / carries them: / spends the login
    // cookie and clears the flags (ADR-0045), so the browser keeps them only
    // until it gets there.
    let arrival: Record<string, string> = {};
    await page.route(`${suite.server.origin}/`, async (route) => {
      arrival = await route.request().allHeaders();
      await route.continue();
    });
    await submitButton(page).click();
    await page.waitForURL(`${suite.server.origin}/`);

    expect(signUpRequests).toHaveLength(1);
    const [request] = signUpRequests;
    if (!request) throw new Error('no sign-up request was sent');
    expect(request.method()).toBe('POST');
    expect(await request.headerValue('content-type')).toMatch(
      /^application\/x-www-form-urlencoded/,
    );
    const sent = [...new URLSearchParams(request.postData() ?? '')];
    expect(sent).toEqual([
      ['name', 'Grace Hopper'],
      ['email', entry.email],
      ['g-recaptcha-response', 'fake-captcha-token-1'],
      ['newsletter', '1'],
      ['url', 'https://status.example.com/health'],
    ]);

    const carried = new Map(
      (arrival.cookie ?? '').split('; ').map((pair) => {
        const equals = pair.indexOf('=');
        return [pair.slice(0, equals), pair.slice(equals + 1)] as const;
      }),
    );
    expect(answer?.data.one_time_auth.token).toMatch(/^[\w-]{20,}$/);
    expect(
      JSON.parse(decodeURIComponent(carried.get('VigilLogin') ?? '')),
    ).toEqual({
      VigilToken: answer?.data.one_time_auth.token,
      VigilSID: answer?.data.one_time_auth.sid,
    });
    // Their attributes are tested in every engine (engines.test.ts).
    for (const name of ['Vigil_WELCOME_MESSAGE', 'Vigil_FIRST_SIGNIN']) {
      expect(carried.get(name), name).toBe('1');
    }
    // / signed the new account in.
    await expect(
      page.getByTestId('welcome-message').textContent(),
    ).resolves.toContain('Welcome to Vigil, Grace Hopper');
    await expect(page.getByTestId('account-name').textContent()).resolves.toBe(
      'Grace Hopper',
    );
    expect(cookieNamed(await context.cookies(), 'Vigil_SESSION').httpOnly).toBe(
      true,
    );
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('sends newsletter=0 when unticked, and the URL as typed with its protocol', async () => {
    const { context, page, signUpRequests } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    await fillSignUpForm(page, validEntry({ url: 'http://example.org/' }));
    await submitButton(page).click();
    await page.waitForURL(`${suite.server.origin}/`);
    const sent = new URLSearchParams(signUpRequests[0]?.postData() ?? '');
    expect(sent.get('newsletter')).toBe('0');
    expect(sent.get('url')).toBe('http://example.org/');
    await context.close();
  });

  it('prefills from the address, rewrites it to /signup, and sends utm_campaign', async () => {
    const email = validEntry().email;
    const { context, page, signUpRequests } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
      {
        query: `?name=Ada%20L&email=${encodeURIComponent(email)}&url=example.net&utm_source=newsletter&utm_campaign=spring-2026`,
      },
    );
    expect(page.url()).toBe(`${suite.server.origin}/signup`);
    await expect(page.locator('input[name=name]').inputValue()).resolves.toBe(
      'Ada L',
    );
    // The e-mail and URL come once the form's rules have judged them
    // (their chunk follows the first paint, ADR-0071).
    await expect
      .poll(() => typedValues(page))
      .toEqual(['Ada L', email, 'example.net']);
    await fillSignUpForm(page, { tos: true, captcha: true });
    await submitButton(page).click();
    await page.waitForURL(`${suite.server.origin}/`);
    const sent = new URLSearchParams(signUpRequests[0]?.postData() ?? '');
    expect(sent.get('utm_campaign')).toBe('spring-2026');
    expect(sent.get('url')).toBe('https://example.net');
    await context.close();
  });

  it('does not prefill an invalid e-mail address or URL', async () => {
    // The e-mail and URL are judged together, once the form's rules have
    // arrived (ADR-0071): the valid one showing up says the invalid one was
    // judged, and refused.
    const visits: [string, string[]][] = [
      [
        '?name=Ada&email=not-an-email&url=example.org',
        ['Ada', '', 'example.org'],
      ],
      [
        '?name=Ada&email=ada%40example.com&url=http://localhost:8080',
        ['Ada', 'ada@example.com', ''],
      ],
    ];
    for (const [query, shown] of visits) {
      const { context, page } = await openSignUpPage(
        suite.browser,
        suite.server.origin,
        { query },
      );
      expect(page.url()).toBe(`${suite.server.origin}/signup`);
      await expect.poll(() => typedValues(page)).toEqual(shown);
      await context.close();
    }
  });
});

describe('client-side errors block the request (R4.6, R8.4 to R8.7)', () => {
  const cases: [string, FormEntry, string, string][] = [
    ['no name', { name: '   ' }, '#name-error', messages.nameRequired],
    [
      'an invalid e-mail',
      { email: 'ada@' },
      '#email-error',
      messages.emailInvalid,
    ],
    ['an empty URL', { url: '' }, '#url-error', messages.urlRequired],
    [
      'a localhost URL',
      { url: 'localhost:3000' },
      '#url-error',
      messages.urlLocal,
    ],
    ['an IP address', { url: 'http://127.1/' }, '#url-error', messages.urlIp],
    // ADR-0044: over the limit, counted as sent (the URL with https:// added).
    [
      'a name of 201 characters',
      { name: 'x'.repeat(201) },
      '#name-error',
      'Enter a name of 200 characters or fewer',
    ],
    [
      'an e-mail address of 255 characters',
      { email: `${'a'.repeat(243)}@example.com` },
      '#email-error',
      'Enter an email address of 254 characters or fewer',
    ],
    [
      'a URL of 2,041 characters, 2,049 with https://',
      { url: `example.com/${'p'.repeat(2029)}` },
      '#url-error',
      'Enter a website address of 2,048 characters or fewer',
    ],
    ['terms not ticked', { tos: false }, '#tos-error', messages.tosRequired],
    [
      'no captcha',
      { captcha: false },
      '[data-testid=notice-captcha]',
      messages.captchaRequired,
    ],
  ];

  it.each(cases)('%s', async (_label, override, selector, message) => {
    const { context, page, signUpRequests } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    const entry = validEntry(override);
    await fillSignUpForm(page, entry);
    await submitButton(page).click();
    const error = page.locator(selector);
    await error.waitFor();
    await expect(error.textContent()).resolves.toContain(message);
    // Exactly one error shows, and the visitor's input is still there.
    await expect(
      page
        .locator('[id$="-error"], [data-testid]')
        .filter({ visible: true })
        .evaluateAll(
          (els) =>
            els.filter(
              (e) =>
                e.id.endsWith('-error') ||
                /^(error-|notice-)/.test(e.getAttribute('data-testid') ?? ''),
            ).length,
        ),
    ).resolves.toBe(1);
    for (const field of ['name', 'email', 'url'] as const) {
      await expect(
        page.locator(`input[name=${field}]`).inputValue(),
      ).resolves.toBe(entry[field]);
    }
    if (selector.startsWith('#') && selector !== '#tos-error') {
      const field = selector.slice(1, -'-error'.length);
      await expect(
        page.locator(`input[name=${field}]`).getAttribute('aria-describedby'),
      ).resolves.toContain(selector.slice(1));
      await expect(
        page.locator(`input[name=${field}]`).getAttribute('aria-invalid'),
      ).resolves.toBe('true');
    }
    await page.waitForTimeout(100);
    expect(signUpRequests).toHaveLength(0);
    await context.close();
  });

  it('typing in a field clears its error', async () => {
    const { context, page } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    await submitButton(page).click();
    await page.locator('#name-error').waitFor();
    await page.locator('input[name=name]').pressSequentially('A');
    await page.locator('#name-error').waitFor({ state: 'detached' });
    await expect(page.locator('#email-error').isVisible()).resolves.toBe(true);
    await context.close();
  });
});

describe('server errors (R8.1 to R8.3) against the local API', () => {
  async function expectUnlockedAndReset(page: Page, resetsBefore: number) {
    await expect(inputsDisabled(page)).resolves.toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    await expect(submitButton(page).isDisabled()).resolves.toBe(false);
    await expect(captchaResets(page)).resolves.toBe(resetsBefore + 1);
    await expect(page.getByTestId('fake-captcha').isChecked()).resolves.toBe(
      false,
    );
  }

  it('a name the API refuses marks the name field', async () => {
    const { context, page, signUpRequests } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    await fillSignUpForm(
      page,
      validEntry({ name: 'Cheap pills at www.spam.example' }),
    );
    const resets = await captchaResets(page);
    await submitButton(page).click();
    await page.locator('#name-error').waitFor();
    await expect(page.locator('#name-error').textContent()).resolves.toContain(
      messages.nameRefused,
    );
    await expect(page.getByTestId('error-general').count()).resolves.toBe(0);
    await expect(page.getByTestId('error-rate-limit').count()).resolves.toBe(0);
    await expectUnlockedAndReset(page, resets);
    expect(signUpRequests).toHaveLength(1);
    await context.close();
  });

  it('an e-mail address signed up before, against the real service, shows that it is in use in the general area (ADR-0043)', async () => {
    const entry = validEntry();
    const first = await openSignUpPage(suite.browser, suite.server.origin);
    await fillSignUpForm(first.page, entry);
    await submitButton(first.page).click();
    await first.page.waitForURL(`${suite.server.origin}/`);
    await first.context.close();

    const { context, page } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    await fillSignUpForm(page, { ...entry });
    const resets = await captchaResets(page);
    await submitButton(page).click();
    await page.getByTestId('error-general').waitFor();
    await expect(
      page.getByTestId('error-general').textContent(),
    ).resolves.toContain(
      'There is already an account with this email address. Sign in to it instead, or use a different email address.',
    );
    await expect(page.getByTestId('error-rate-limit').count()).resolves.toBe(0);
    await expect(page.locator('#name-error').count()).resolves.toBe(0);
    await expectUnlockedAndReset(page, resets);
    await expect(page.locator('input[name=email]').inputValue()).resolves.toBe(
      entry.email,
    );
    await context.close();
  });

  it('an e-mail address in use shows its own message in the general area, and keeps the form (ADR-0043)', async () => {
    const { context, page, signUpRequests } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    const entry = validEntry({ newsletter: true });
    await fillSignUpForm(page, entry);
    await page.route('**/2/account/signup/', (route) =>
      route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({
          success: false,
          code: 'CSAPI_EMAIL_IN_USE',
          info: 'email',
        }),
      }),
    );
    const resets = await captchaResets(page);
    await submitButton(page).click();
    const general = page.getByTestId('error-general');
    await general.waitFor();
    await expect(general.locator('p').textContent()).resolves.toBe(
      'There is already an account with this email address. Sign in to it instead, or use a different email address.',
    );
    // The way in that the message names: sign-in by e-mail.
    await expect(
      general
        .getByRole('link', { name: 'Sign in to it instead' })
        .getAttribute('href'),
    ).resolves.toBe('/signin');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.id))
      .toBe('error-summary');
    await expect(page.getByTestId('error-rate-limit').count()).resolves.toBe(0);
    await expect(page.locator('[id$="-error"]').count()).resolves.toBe(0);
    await expectUnlockedAndReset(page, resets);
    for (const field of ['name', 'email', 'url'] as const) {
      await expect(
        page.locator(`input[name=${field}]`).inputValue(),
      ).resolves.toBe(entry[field]);
    }
    await expect(
      page.locator('input[name=newsletter]').isChecked(),
    ).resolves.toBe(true);
    await expect(page.locator('input[name=tos]').isChecked()).resolves.toBe(
      true,
    );
    expect(signUpRequests).toHaveLength(1);
    await context.close();
  });

  it('the rate limit shows the rate-limit error', async () => {
    const limited = await startTestServer({ rateLimit: 1 });
    try {
      const first = await openSignUpPage(suite.browser, limited.origin);
      await fillSignUpForm(first.page, validEntry());
      await submitButton(first.page).click();
      await first.page.waitForURL(`${limited.origin}/`);
      await first.context.close();

      const { context, page } = await openSignUpPage(
        suite.browser,
        limited.origin,
      );
      await fillSignUpForm(page, validEntry());
      const resets = await captchaResets(page);
      await submitButton(page).click();
      await page.getByTestId('error-rate-limit').waitFor();
      await expect(page.getByTestId('error-general').count()).resolves.toBe(0);
      await expectUnlockedAndReset(page, resets);
      await context.close();
    } finally {
      await limited.close();
    }
  });

  it('locks the form while the request runs, then a failure clears earlier errors', async () => {
    const { context, page } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    // First a client-side error, then a server failure: only the latter shows.
    await fillSignUpForm(
      page,
      validEntry({ name: 'Visit https://spam.example', captcha: false }),
    );
    await submitButton(page).click();
    await page.getByTestId('notice-captcha').waitFor();
    await fillSignUpForm(page, { captcha: true });
    const held: PromiseWithResolvers<void> = Promise.withResolvers();
    await page.route('**/2/account/signup/', async (route) => {
      await held.promise;
      await route.continue();
    });
    await submitButton(page).click();
    await expect
      .poll(() => submitButton(page).textContent())
      .toBe('Creating your account…');
    await expect(inputsDisabled(page)).resolves.toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    await expect(submitButton(page).isDisabled()).resolves.toBe(true);
    held.resolve();
    await page.locator('#name-error').waitFor();
    await expect(page.getByTestId('notice-captcha').count()).resolves.toBe(0);
    await context.close();
  });
});
