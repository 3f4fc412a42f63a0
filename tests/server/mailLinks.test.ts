/**
 * Magic links and sign-in by e-mail, as issue 37 asks, through HTTP with
 * the mails read from a real SMTP server:
 *
 * - a link's GET and HEAD change nothing, however often they come (mail
 *   scanners); its page holds one POST form; the POST confirms or signs
 *   in once; used, expired and forged links say so and show a way on;
 * - `/signin` answers the same for every address, mails only a known one,
 *   and holds its limits per address and per client;
 * - the owner's address wins: signing in by link ends a squatter's
 *   session; the newsletter waits for the confirmation link (ADR-0096 to
 *   ADR-0099).
 */
import type { ParsedMail } from 'mailparser';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_UP_PATH } from '../../contract/signUp';
import { addressKeys } from '../../server/accounts/linkMails/linkMails';
import { FORM, validSignUp } from './support/apiServer';
import {
  askSignIn as askSignInOf,
  hook,
  lastMailTo as lastMailOf,
  type MailService,
  pathOf,
  postForm,
  SESSION_COOKIE,
  sessionCookie,
  signUpAndSignIn,
  startMailService,
  tokenOf,
} from './support/mailService';

let service: MailService;

beforeAll(async () => {
  service = await startMailService();
});

afterAll(() => service.close());

/** The newest mail to an address, once the sender has sent what is due. */
const lastMailTo = (email: string): Promise<ParsedMail> =>
  lastMailOf(service, email);

const get = (url: string, cookie?: string) =>
  service.app.inject({
    method: 'GET',
    url,
    headers: cookie === undefined ? {} : { cookie },
  });

const accountRow = (email: string) =>
  service.app.database.db
    .selectFrom('accounts')
    .select(['confirmed_at', 'newsletter_confirmed_at', 'newsletter'])
    .where('email', '=', email)
    .executeTakeFirstOrThrow();

const tokenRow = (token: string) =>
  service.app.database.db
    .selectFrom('link_tokens')
    .select(['used_at', 'purpose'])
    .where(
      'token_hash',
      '=',
      sql<Uint8Array>`sha256(convert_to(${token}, 'UTF8'))`,
    )
    .executeTakeFirstOrThrow();

/** Asks for a sign-in link at `/signin`, as the page's form does. */
/**
 * Moves an address's one-a-minute cooldown (ADR-0097) into the past, as a
 * minute passing would.
 */
async function passCooldown(email: string): Promise<void> {
  await sql`update rate_limit_windows set window_ends_at = now() - interval '1 second'
             where key = ${addressKeys(email).cooldown}`.execute(
    service.app.database.db,
  );
}

const askSignIn = (email: string, remoteAddress?: string) =>
  askSignInOf(service.app, email, remoteAddress);

describe('a confirmation link', () => {
  it('changes nothing when fetched by GET three times and by HEAD, and shows one POST form', async () => {
    const { email } = await signUpAndSignIn(service.app);
    const mail = await lastMailTo(email);
    const token = tokenOf(mail);
    for (const method of ['GET', 'GET', 'GET', 'HEAD'] as const) {
      const page = await service.app.inject({ method, url: pathOf(mail) });
      expect(page.statusCode, method).toBe(200);
      expect(page.headers['referrer-policy'], method).toBe('no-referrer');
      expect(page.headers['cache-control'], method).toBe('no-store');
      if (method === 'GET') {
        expect(page.body.match(/<form\b/g)).toHaveLength(1);
        expect(page.body).toMatch(/<form method="post" action="\/link"/);
        expect(page.body.match(/data-testid="link-continue"/g)).toHaveLength(1);
        // The token only in the form's hidden field.
        expect(page.body.split(token)).toHaveLength(2);
        expect(page.body).toContain(
          `<input type="hidden" name="token" value="${token}">`,
        );
      }
    }
    expect((await tokenRow(token)).used_at).toBeNull();
    expect((await accountRow(email)).confirmed_at).toBeNull();
  });

  it('confirms the address and the newsletter once when its form is posted; a second post is refused', async () => {
    const { email, cookie } = await signUpAndSignIn(service.app, {
      newsletter: '1',
    });
    const token = tokenOf(await lastMailTo(email));
    const first = await postForm(service.app, '/link', { token }, { cookie });
    // The browser that signed up stays signed in, and sees `/` confirmed.
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe('/');
    const account = await accountRow(email);
    expect(account.confirmed_at).toBeInstanceOf(Date);
    expect(account.newsletter_confirmed_at).toBeInstanceOf(Date);
    const home = await get('/', cookie);
    expect(hook(home.body, 'account-email')).toBe(email);
    expect(hook(home.body, 'address-unconfirmed')).toBeUndefined();

    const again = await postForm(service.app, '/link', { token }, { cookie });
    expect(again.statusCode).toBe(410);
    expect(hook(again.body, 'link-refused')).toBeDefined();
    expect(again.body).toContain('href="/signin"');
    expect(again.body).not.toContain(email);
    expect((await get(pathOf(await lastMailTo(email)))).statusCode).toBe(410);
  });

  it('leaves the newsletter off when none was asked for', async () => {
    const { email, cookie } = await signUpAndSignIn(service.app, {
      newsletter: '0',
    });
    const token = tokenOf(await lastMailTo(email));
    await postForm(service.app, '/link', { token }, { cookie });
    const account = await accountRow(email);
    expect(account.confirmed_at).toBeInstanceOf(Date);
    expect(account.newsletter_confirmed_at).toBeNull();
  });

  it('posted from another browser confirms, and ends the sessions of the account that was unconfirmed', async () => {
    const { email, cookie } = await signUpAndSignIn(service.app);
    const token = tokenOf(await lastMailTo(email));
    const elsewhere = await postForm(service.app, '/link', { token });
    expect(elsewhere.statusCode).toBe(200);
    expect(hook(elsewhere.body, 'link-confirmed')).toBeDefined();
    expect(elsewhere.body).not.toContain(email);
    expect(hook((await get('/', cookie)).body, 'signed-out')).toBeDefined();
  });

  it('no longer works after its 24 hours, by GET or POST', async () => {
    const { email } = await signUpAndSignIn(service.app);
    const mail = await lastMailTo(email);
    await sql`update link_tokens set expires_at = now() - interval '1 second'
               where token_hash = sha256(convert_to(${tokenOf(mail)}, 'UTF8'))`.execute(
      service.app.database.db,
    );
    expect((await get(pathOf(mail))).statusCode).toBe(410);
    const post = await postForm(service.app, '/link', { token: tokenOf(mail) });
    expect(post.statusCode).toBe(410);
    expect((await accountRow(email)).confirmed_at).toBeNull();
  });

  it('lives 24 hours from its sending (ADR-0112: a leaked link is worth a day, not a week)', async () => {
    const { email } = await signUpAndSignIn(service.app);
    const token = tokenOf(await lastMailTo(email));
    const { rows } = await sql<{ lifetime: number }>`
      select extract(epoch from expires_at - created_at)::integer as lifetime
        from link_tokens where token_hash = sha256(convert_to(${token}, 'UTF8'))`.execute(
      service.app.database.db,
    );
    expect(rows[0]?.lifetime).toBe(24 * 3600);
  });

  it('never appears in the HTML of `/`', async () => {
    const { email, cookie } = await signUpAndSignIn(service.app);
    const token = tokenOf(await lastMailTo(email));
    const home = await get('/', cookie);
    expect(hook(home.body, 'address-unconfirmed')).toContain(email);
    expect(home.body).not.toContain(token);
  });

  it('is refused, changing nothing, when forged, malformed, missing or sent twice in one form', async () => {
    const { email } = await signUpAndSignIn(service.app);
    const token = tokenOf(await lastMailTo(email));
    const forged = 'A'.repeat(43);
    for (const url of [`/link?token=${forged}`, '/link?token=short', '/link']) {
      const page = await get(url);
      expect(page.statusCode, url).toBe(410);
      expect(hook(page.body, 'link-refused'), url).toBeDefined();
    }
    for (const payload of [
      `token=${forged}`,
      'token=',
      '',
      `token=${token}&token=${token}`,
    ]) {
      const post = await service.app.inject({
        method: 'POST',
        url: '/link',
        headers: { 'content-type': FORM, 'sec-fetch-site': 'same-origin' },
        payload,
      });
      expect(post.statusCode, payload).toBe(410);
    }
    expect((await tokenRow(token)).used_at).toBeNull();
  });

  it('is not spent by a post from another site', async () => {
    const { email } = await signUpAndSignIn(service.app);
    const token = tokenOf(await lastMailTo(email));
    const forged = await postForm(
      service.app,
      '/link',
      { token },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(forged.statusCode).toBe(403);
    expect(forged.headers['content-type']).toMatch(/^text\/html/);
    expect((await tokenRow(token)).used_at).toBeNull();
  });
});

describe('the watched site in the confirmation (issue 58, ADR-0123)', () => {
  it('is named by its host, in the mail and on its continue page, and nothing else of its URL', async () => {
    const { email } = await signUpAndSignIn(service.app, {
      url: 'https://Shop.Example/cart?coupon=FREE',
    });
    const mail = await lastMailTo(email);
    expect(mail.text).toContain(', to watch shop.example. Confirm the address');
    expect(mail.text).not.toMatch(/cart|coupon/i);
    expect(typeof mail.html === 'string' && mail.html).not.toMatch(
      /cart|coupon/i,
    );
    const page = await get(pathOf(mail));
    expect(hook(page.body, 'link-site')).toBe('shop.example');
    expect(page.body).not.toMatch(/cart|coupon/i);
  });
});

describe('sign-in by e-mail at /signin', () => {
  it('is a plain HTML form with an email field', async () => {
    const page = await get('/signin');
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(
      /<form method="post" action="\/signin"[^>]*data-testid="signin-form"/,
    );
    expect(page.body).toMatch(/<input[^>]*name="email"/);
    expect(page.body).not.toMatch(/<script/);
  });

  it('answers a known and an unknown address with the same page, and mails only the known one', async () => {
    const { email } = await signUpAndSignIn(service.app);
    const unknown = `nobody.${Date.now()}@example.com`;
    const known = await askSignIn(email, '203.0.113.21');
    const stranger = await askSignIn(unknown, '203.0.113.22');
    expect(known.statusCode).toBe(200);
    expect(stranger.statusCode).toBe(known.statusCode);
    expect(stranger.body).toBe(known.body);
    expect(hook(known.body, 'signin-sent')).toBeDefined();
    expect(known.body).not.toContain(email);
    await service.drain();
    expect(service.mailsTo(unknown)).toHaveLength(0);
    const mail = await lastMailTo(email);
    expect(mail.subject).toContain('sign-in');
  });

  it('answers a post from another site and a body that is not a form with a page, sending nothing', async () => {
    const { email } = await signUpAndSignIn(service.app);
    await service.drain();
    const before = service.mailsTo(email).length;
    const forged = await postForm(
      service.app,
      '/signin',
      { email },
      { 'sec-fetch-site': 'cross-site' },
    );
    const json = await service.app.inject({
      method: 'POST',
      url: '/signin',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email }),
    });
    expect([forged.statusCode, json.statusCode]).toEqual([403, 415]);
    for (const answer of [forged, json]) {
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(hook(answer.body, 'form-error')).toBeDefined();
    }
    await service.drain();
    expect(service.mailsTo(email)).toHaveLength(before);
  });

  it('refuses an address that cannot be one, keeping what was typed', async () => {
    const page = await askSignIn('not an address');
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('value="not an address"');
    expect(page.body).toContain('aria-describedby="email-error"');
  });

  it('signs in once with the magic link, with the first sign-in’s session cookie', async () => {
    const { email } = await signUpAndSignIn(service.app);
    await askSignIn(email, '203.0.113.31');
    const mail = await lastMailTo(email);
    const continuePage = await get(pathOf(mail));
    expect(continuePage.statusCode).toBe(200);
    expect(hook(continuePage.body, 'link-continue')).toBe('Sign me in');
    const post = await postForm(service.app, '/link', { token: tokenOf(mail) });
    expect(post.statusCode).toBe(303);
    expect(post.headers.location).toBe('/');
    const session = sessionCookie(post);
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const setCookie = String(post.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const home = await get('/', `${SESSION_COOKIE}=${session ?? ''}`);
    expect(hook(home.body, 'account-email')).toBe(email);
    // Signing in by link proves the address.
    expect(hook(home.body, 'address-unconfirmed')).toBeUndefined();
    const again = await postForm(service.app, '/link', {
      token: tokenOf(mail),
    });
    expect(again.statusCode).toBe(410);
    expect(sessionCookie(again)).toBeUndefined();
  });

  it('on an https PUBLIC_URL, sets the session Secure under the __Host- prefix', async () => {
    const { email } = await signUpAndSignIn(service.app);
    await askSignIn(email, '203.0.113.32');
    const mail = await lastMailTo(email);
    const post = await postForm(service.app, '/link', { token: tokenOf(mail) });
    expect(post.statusCode).toBe(303);
    expect(post.headers.location).toBe('/');
    expect(String(post.headers['set-cookie'])).toMatch(
      /^__Host-Vigil_SESSION=[^;]+;.*Secure/,
    );
  });

  it('no longer signs in after its 15 minutes', async () => {
    const { email } = await signUpAndSignIn(service.app);
    await askSignIn(email, '203.0.113.33');
    const token = tokenOf(await lastMailTo(email));
    const { rows } = await sql<{ lifetime: number }>`
      update link_tokens set expires_at = now() - interval '1 second'
       where token_hash = sha256(convert_to(${token}, 'UTF8'))
      returning extract(epoch from expires_at - created_at)::integer + 1 as lifetime`.execute(
      service.app.database.db,
    );
    expect(rows).toHaveLength(1);
    const post = await postForm(service.app, '/link', { token });
    expect(post.statusCode).toBe(410);
    expect(sessionCookie(post)).toBeUndefined();
  });

  it('lives 15 minutes from its sending', async () => {
    const { email } = await signUpAndSignIn(service.app);
    await askSignIn(email, '203.0.113.34');
    const token = tokenOf(await lastMailTo(email));
    const { rows } = await sql<{ lifetime: number; purpose: string }>`
      select purpose, extract(epoch from expires_at - created_at)::integer as lifetime
        from link_tokens where token_hash = sha256(convert_to(${token}, 'UTF8'))`.execute(
      service.app.database.db,
    );
    expect(rows[0]).toEqual({ purpose: 'signin', lifetime: 15 * 60 });
  });
});

describe('the limits on mails (ADR-0097)', () => {
  it('mails one address once a minute, and answers the other requests the same without a mail', async () => {
    const { email } = await signUpAndSignIn(service.app);
    await service.drain();
    const confirmations = service.mailsTo(email).length;
    const pages = [];
    for (let index = 0; index < 4; index += 1) {
      pages.push(await askSignIn(email, `198.51.100.${index + 1}`));
    }
    for (const page of pages) {
      expect(page.statusCode).toBe(200);
      expect(page.body).toBe(pages[0]?.body);
    }
    await service.drain();
    expect(service.mailsTo(email).length - confirmations).toBe(1);
  });

  it('takes 10 requests an hour from one client, counting an IPv6 client by its /64', async () => {
    const emails = [];
    for (let index = 0; index < 11; index += 1) {
      emails.push((await signUpAndSignIn(service.app)).email);
    }
    await service.drain();
    const before = service.sink.messages.length;
    for (const [index, email] of emails.entries()) {
      const page = await askSignIn(email, `2001:db8:5:6::${index + 1}`);
      expect(page.statusCode).toBe(200);
    }
    await service.drain();
    expect(service.sink.messages.length - before).toBe(10);
  });
});

describe('the owner’s address wins (ADR-0098)', () => {
  it('signing in by link ends the session of whoever signed up with the address, and leaves the newsletter unconfirmed', async () => {
    const squatter = await signUpAndSignIn(service.app, { newsletter: '1' });
    await askSignIn(squatter.email, '203.0.113.41');
    const mail = await lastMailTo(squatter.email);
    const owner = await postForm(service.app, '/link', {
      token: tokenOf(mail),
    });
    const ownerSession = `${SESSION_COOKIE}=${sessionCookie(owner) ?? ''}`;

    const squatterHome = await get('/', squatter.cookie);
    expect(hook(squatterHome.body, 'signed-out')).toBeDefined();
    expect(squatterHome.body).not.toContain(squatter.email);
    const ownerHome = await get('/', ownerSession);
    expect(hook(ownerHome.body, 'account-email')).toBe(squatter.email);
    const account = await accountRow(squatter.email);
    expect(account.confirmed_at).toBeInstanceOf(Date);
    expect(account.newsletter).toBe(true);
    expect(account.newsletter_confirmed_at).toBeNull();
  });

  it('a confirmed account’s sign-in by link ends its unproven sessions, and keeps the ones other links opened (ADR-0112)', async () => {
    const { email, cookie } = await signUpAndSignIn(service.app);
    await postForm(
      service.app,
      '/link',
      { token: tokenOf(await lastMailTo(email)) },
      { cookie },
    );
    // The laptop signs in by link: the sign-up's session, unproven, ends.
    const signInByLink = async (remoteAddress: string) => {
      await askSignIn(email, remoteAddress);
      const post = await postForm(service.app, '/link', {
        token: tokenOf(await lastMailTo(email)),
      });
      expect(post.statusCode).toBe(303);
      return `${SESSION_COOKIE}=${sessionCookie(post) ?? ''}`;
    };
    const laptop = await signInByLink('203.0.113.42');
    expect(hook((await get('/', cookie)).body, 'signed-out')).toBeDefined();
    // A minute later the phone signs in by link: the laptop stays.
    await passCooldown(email);
    const phone = await signInByLink('203.0.113.43');
    expect(hook((await get('/', laptop)).body, 'account-email')).toBe(email);
    expect(hook((await get('/', phone)).body, 'account-email')).toBe(email);
  });
});

describe('sending the confirmation again', () => {
  it('is offered on `/` while unconfirmed, mails a new link, and says when the address must wait', async () => {
    const { email, cookie } = await signUpAndSignIn(service.app);
    const home = await get('/', cookie);
    expect(hook(home.body, 'address-unconfirmed')).toContain(email);
    expect(hook(home.body, 'resend-confirmation')).toBe('Send the link again');
    // The day it is deleted unless confirmed: 7 days after the sign-up
    // (ADR-0098).
    const { rows } = await sql<{ day: string }>`
      select to_char((created_at + interval '7 days') at time zone 'UTC', 'FMDD FMMonth YYYY') as day
        from accounts where email = ${email}`.execute(service.app.database.db);
    expect(hook(home.body, 'address-unconfirmed')).toContain(
      `Unless it is confirmed by ${rows[0]?.day ?? '?'}, this account will be deleted.`,
    );
    await service.drain();
    const before = service.mailsTo(email).length;
    const answers = [];
    for (let index = 0; index < 4; index += 1) {
      answers.push(
        await postForm(service.app, '/resend-confirmation', {}, { cookie }),
      );
    }
    expect(answers.map((answer) => answer.headers.location)).toEqual([
      '/?resent=sent',
      '/?resent=limited',
      '/?resent=limited',
      '/?resent=limited',
    ]);
    await service.drain();
    expect(service.mailsTo(email).length - before).toBe(1);
    expect(
      hook((await get('/?resent=limited', cookie)).body, 'confirmation-resent'),
    ).toMatch(/wait/);
  });

  it('for an account made before confirmation existed, names no day of deletion: it is kept', async () => {
    const { email, cookie } = await signUpAndSignIn(service.app);
    await sql`update accounts set confirm_by = null where email = ${email}`.execute(
      service.app.database.db,
    );
    const notice = hook((await get('/', cookie)).body, 'address-unconfirmed');
    expect(notice).toContain(email);
    expect(notice).not.toMatch(/deleted/);
  });

  it('is not offered once confirmed, and queues nothing without a session', async () => {
    const { email, cookie } = await signUpAndSignIn(service.app);
    const token = tokenOf(await lastMailTo(email));
    await postForm(service.app, '/link', { token }, { cookie });
    expect(
      hook((await get('/', cookie)).body, 'address-unconfirmed'),
    ).toBeUndefined();
    const confirmed = await postForm(
      service.app,
      '/resend-confirmation',
      {},
      { cookie },
    );
    const anonymous = await postForm(service.app, '/resend-confirmation', {});
    for (const answer of [confirmed, anonymous]) {
      expect(answer.statusCode).toBe(303);
      expect(answer.headers.location).toBe('/');
    }
    await service.drain();
    expect(service.mailsTo(email)).toHaveLength(1);
  });
});

describe('a sign-up', () => {
  it('still answers exactly as the spec says, with the one-time sign-in', async () => {
    const answer = await service.app.inject({
      method: 'POST',
      url: SIGN_UP_PATH,
      headers: { 'content-type': FORM },
      payload: validSignUp().toString(),
    });
    expect(answer.statusCode).toBe(200);
    expect(Object.keys(answer.json() as object)).toEqual(['success', 'data']);
  });
});
