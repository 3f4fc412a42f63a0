/**
 * The magic links end to end (ADR-0096, ADR-0097): the built
 * page in headless Chromium, the real local service sending its mail to a
 * real SMTP server of the test's own (harness/mail/smtpSink.ts),
 * with `PUBLIC_URL` the service's own origin so that the browser opens the
 * links as they were mailed. A visitor
 *
 * 1. signs up, and lands on `/`, which names the address still to confirm;
 * 2. opens the confirmation mail's link, presses the continue page's
 *    button, and is back on `/` with the address confirmed;
 * 3. signs out, asks `/signin` for a link, and is told to check the mail;
 * 4. opens the sign-in mail's link, presses the button, and is signed in.
 *
 * axe-core finds nothing on the unconfirmed `/`, the continue page and
 * `/signin`. Nothing waits on the clock: the test waits on the page's
 * elements and on the sink's mails.
 */
import type { ParsedMail } from 'mailparser';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { linkOf } from '../server/support/mailService';
import { startSmtpSink, type SmtpSink } from '../../harness/mail/smtpSink';
import { axeViolationsIn } from './support/axe';
import { launchChromium } from './support/chromium';

/** A sign-up, two mails, six page loads, three axe runs. */
const JOURNEY_TIMEOUT = 120_000;

const suite = {} as { browser: Browser; sink: SmtpSink; server: TestServer };
beforeAll(async () => {
  suite.sink = await startSmtpSink();
  [suite.browser, suite.server] = await Promise.all([
    launchChromium(),
    startTestServer({ smtpUrl: suite.sink.url }),
  ]);
});
afterAll(async () => {
  await Promise.all([suite.browser?.close(), suite.server?.close()]);
  await suite.sink?.stop();
});

/** The addresses a mail went to, lower-cased. */
function recipients(mail: ParsedMail): string[] {
  return [mail.to ?? []]
    .flat()
    .flatMap((to) => to.value.map((box) => box.address?.toLowerCase() ?? ''));
}

/**
 * The n-th mail (1-based) once the sink has it: to `email`, with one link
 * to the service's own continue page.
 */
async function nthMailLink(n: number, email: string): Promise<URL> {
  const mail = (await suite.sink.waitForMessages(n))[n - 1];
  if (!mail) throw new Error(`no mail number ${n}`);
  expect(recipients(mail)).toEqual([email.toLowerCase()]);
  const link = linkOf(mail);
  expect(link.origin).toBe(suite.server.origin);
  expect(link.pathname).toBe('/link');
  return link;
}

/** Opens a magic link, checks the continue page, and presses its button. */
async function continueFrom(page: Page, link: URL) {
  await page.goto(link.href);
  await page.getByTestId('link-continue').waitFor();
  await expect(page.locator('form[method=post]').count()).resolves.toBe(1);
  await expect(axeViolationsIn(page), 'the continue page').resolves.toEqual([]);
  await page.getByTestId('link-continue').click();
  await page.waitForURL(`${suite.server.origin}/`);
}

describe('the magic links', () => {
  it(
    'sign up, confirm the address by its link, sign out, sign in by a link',
    async () => {
      const { origin } = suite.server;
      const { context, page, pageErrors } = await openSignUpPage(
        suite.browser,
        origin,
      );
      try {
        // 1. Sign up: `/` names the address still to confirm.
        const entry = validEntry();
        await fillSignUpForm(page, entry);
        await submitButton(page).click();
        await page.waitForURL(`${origin}/`);
        const unconfirmed = page.getByTestId('address-unconfirmed');
        await unconfirmed.waitFor();
        await expect(unconfirmed.textContent()).resolves.toContain(entry.email);
        await expect(
          page.getByTestId('resend-confirmation').isVisible(),
        ).resolves.toBe(true);
        await expect(
          axeViolationsIn(page),
          'the unconfirmed account',
        ).resolves.toEqual([]);

        // 2. The confirmation mail's link, pressed in the signed-in
        //    browser: back to `/`, the address confirmed.
        const confirmLink = await nthMailLink(1, entry.email);
        await continueFrom(page, confirmLink);
        await page.getByTestId('account-email').waitFor();
        await expect(
          page.getByTestId('account-email').textContent(),
        ).resolves.toBe(entry.email);
        await expect(
          page.getByTestId('address-unconfirmed').count(),
        ).resolves.toBe(0);

        // 3. Sign out, and ask for a sign-in link.
        await page.getByTestId('sign-out').click();
        await page.getByTestId('signed-out').waitFor();
        await page.goto(`${origin}/signin`);
        const form = page.getByTestId('signin-form');
        await form.waitFor();
        await expect(axeViolationsIn(page), '/signin').resolves.toEqual([]);
        await form.locator('input[name=email]').fill(entry.email);
        await form.locator('button[type=submit]').click();
        await page.getByTestId('signin-sent').waitFor();
        expect(new URL(page.url()).pathname).toBe('/signin');

        // 4. The sign-in mail's link: signed in at `/`.
        const signInLink = await nthMailLink(2, entry.email);
        expect(signInLink.searchParams.get('token')).not.toBe(
          confirmLink.searchParams.get('token'),
        );
        await continueFrom(page, signInLink);
        await page.getByTestId('account-email').waitFor();
        await expect(
          page.getByTestId('account-email').textContent(),
        ).resolves.toBe(entry.email);
        await expect(page.getByTestId('sign-out').count()).resolves.toBe(1);
        await expect(
          page.getByTestId('address-unconfirmed').count(),
        ).resolves.toBe(0);
        expect(suite.sink.messages, 'no mail beyond the two').toHaveLength(2);
        expect(pageErrors).toEqual([]);
      } finally {
        await context.close();
      }
    },
    JOURNEY_TIMEOUT,
  );
});
