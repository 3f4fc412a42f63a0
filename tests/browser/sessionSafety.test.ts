/**
 * Sessions an attacker cannot borrow (issue 46; ADR-0110, ADR-0112), in
 * headless Chromium against the built page and the real local service, on the
 * product host over HTTPS (`signup.vigil.test`, `COOKIE_DOMAIN`
 * `.vigil.test`), its mail sent to a real SMTP server of the test's own:
 *
 * - a real sign-up still lands signed in;
 * - a login cookie planted by a sibling subdomain (`Domain=.vigil.test`),
 *   holding the attacker's own fresh token, neither swaps the victim's
 *   session for the attacker's account nor stays behind;
 * - a planted garbage login cookie does not lock the victim out;
 * - a squatter who signed up with the owner's address and posted the
 *   (leaked) confirmation link from its own session is signed out once
 *   the owner signs in by e-mail in another browser.
 *
 * Nothing waits on the clock: the test waits on the page's elements and
 * on the sink's mails.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_UP_PATH } from '../../contract/signUp';
import {
  fillSignUpForm,
  openSignUpPage,
  submitButton,
  validEntry,
} from '../../harness/page/signUpPage';
import { TEST_COOKIE_DOMAIN } from '../../harness/page/paths';
import {
  startTestServer,
  type TestServer,
} from '../../harness/page/testServer';
import { linkOf } from '../server/support/mailService';
import { startSmtpSink, type SmtpSink } from '../../harness/mail/smtpSink';
import { launchChromium } from './support/chromium';

/** Two or three browsers, a sign-up each, up to two mails. */
const TEST_TIMEOUT = 90_000;

const suite = {} as { browser: Browser; sink: SmtpSink; server: TestServer };
beforeAll(async () => {
  suite.sink = await startSmtpSink();
  [suite.browser, suite.server] = await Promise.all([
    launchChromium(),
    startTestServer({ https: true, smtpUrl: suite.sink.url }),
  ]);
});
afterAll(async () => {
  await Promise.all([suite.browser?.close(), suite.server?.close()]);
  await suite.sink?.stop();
});

/** Signs up through the page; resolves on `/`, signed in. */
async function signUpInBrowser(
  email?: string,
): Promise<{ context: BrowserContext; page: Page; email: string }> {
  const { origin } = suite.server;
  const { context, page } = await openSignUpPage(suite.browser, origin);
  const entry = { ...validEntry(), ...(email !== undefined && { email }) };
  await fillSignUpForm(page, entry);
  await submitButton(page).click();
  await page.waitForURL(`${origin}/`);
  await page.getByTestId('account-email').waitFor();
  await expect(page.getByTestId('account-email').textContent()).resolves.toBe(
    entry.email,
  );
  return { context, page, email: entry.email };
}

/**
 * The attacker's own sign-up, posted to the API from a browser of its own:
 * a fresh token and sid, as `{product}Login`'s value (ADR-0006), which the
 * attacker's browser never redeems.
 */
async function attackerLogin(): Promise<string> {
  const { origin } = suite.server;
  const entry = validEntry();
  const context = await suite.browser.newContext({ ignoreHTTPSErrors: true });
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/healthz`);
    const auth = await page.evaluate(
      async ({ path, body }) => {
        const answer = await fetch(path, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        const json = (await answer.json()) as {
          data: { one_time_auth: { token: string; sid: string } };
        };
        return json.data.one_time_auth;
      },
      {
        path: SIGN_UP_PATH,
        body: new URLSearchParams({
          name: entry.name,
          email: entry.email,
          url: `https://${entry.url}`,
          newsletter: '0',
          'g-recaptcha-response': 'token',
        }).toString(),
      },
    );
    return encodeURIComponent(
      JSON.stringify({ VigilToken: auth.token, VigilSID: auth.sid }),
    );
  } finally {
    await context.close();
  }
}

/** Plants `VigilLogin` as a sibling subdomain could: `Domain=.vigil.test`. */
async function plantLogin(context: BrowserContext, value: string) {
  await context.addCookies([
    {
      name: 'VigilLogin',
      value,
      domain: TEST_COOKIE_DOMAIN,
      path: '/',
      secure: true,
      sameSite: 'Strict',
    },
  ]);
}

async function loginCookies(context: BrowserContext) {
  return (await context.cookies(suite.server.origin)).filter(
    (cookie) => cookie.name === 'VigilLogin',
  );
}

describe('a planted login cookie', () => {
  it(
    'holding the attacker’s fresh token, leaves the victim signed in as itself, and is cleared',
    async () => {
      const victim = await signUpInBrowser();
      try {
        await plantLogin(victim.context, await attackerLogin());
        await victim.page.reload();
        await victim.page.getByTestId('account-email').waitFor();
        await expect(
          victim.page.getByTestId('account-email').textContent(),
        ).resolves.toBe(victim.email);
        await expect(loginCookies(victim.context)).resolves.toEqual([]);
      } finally {
        await victim.context.close();
      }
    },
    TEST_TIMEOUT,
  );

  it(
    'holding garbage, does not lock the victim out, and is cleared',
    async () => {
      const victim = await signUpInBrowser();
      try {
        await plantLogin(victim.context, '%7Bgarbage');
        await victim.page.reload();
        await victim.page.getByTestId('account-email').waitFor();
        await expect(
          victim.page.getByTestId('signin-refused').count(),
        ).resolves.toBe(0);
        await expect(loginCookies(victim.context)).resolves.toEqual([]);
        await victim.page.reload();
        await expect(
          victim.page.getByTestId('account-email').textContent(),
        ).resolves.toBe(victim.email);
      } finally {
        await victim.context.close();
      }
    },
    TEST_TIMEOUT,
  );
});

describe('a leaked confirmation link', () => {
  it(
    'posted from a squatter’s session buys it nothing once the owner signs in by e-mail',
    async () => {
      const { origin } = suite.server;
      const before = suite.sink.messages.length;
      // The squatter signs up with the owner's address, and posts the
      // confirmation link (leaked by a URL scanner) from its session.
      const squatter = await signUpInBrowser();
      const confirm = (await suite.sink.waitForMessages(before + 1))[before];
      if (!confirm) throw new Error('no confirmation mail');
      await squatter.page.goto(linkOf(confirm).href);
      await squatter.page.getByTestId('link-continue').click();
      await squatter.page.waitForURL(`${origin}/`);
      await expect(
        squatter.page.getByTestId('address-unconfirmed').count(),
      ).resolves.toBe(0);

      // The owner signs in by e-mail in another browser.
      const owner = await suite.browser.newContext({ ignoreHTTPSErrors: true });
      try {
        const page = await owner.newPage();
        await page.goto(`${origin}/signin`);
        const form = page.getByTestId('signin-form');
        await form.locator('input[name=email]').fill(squatter.email);
        await form.locator('button[type=submit]').click();
        await page.getByTestId('signin-sent').waitFor();
        const signIn = (await suite.sink.waitForMessages(before + 2))[
          before + 1
        ];
        if (!signIn) throw new Error('no sign-in mail');
        await page.goto(linkOf(signIn).href);
        // The continue page names the address it signs in to, masked.
        await expect(
          page.getByTestId('link-address').textContent(),
        ).resolves.toBe(
          `${squatter.email[0] ?? ''}•••@${squatter.email.split('@')[1] ?? ''}`,
        );
        await page.getByTestId('link-continue').click();
        await page.waitForURL(`${origin}/`);
        await page.getByTestId('account-email').waitFor();

        // The squatter's next request to `/` is signed out.
        await squatter.page.reload();
        await squatter.page.getByTestId('signed-out').waitFor();
        await expect(
          squatter.page.getByTestId('account-email').count(),
        ).resolves.toBe(0);
      } finally {
        await owner.close();
        await squatter.context.close();
      }
    },
    TEST_TIMEOUT,
  );
});
