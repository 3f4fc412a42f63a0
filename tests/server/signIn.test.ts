/**
 * `/` as the first sign-in (docs/contract.md "HTTP"; ADR-0045, ADR-0046),
 * through HTTP: the cookies a sign-up leaves are redeemed once for an HttpOnly
 * session; the account shows, with the welcome while
 * `{product}_WELCOME_MESSAGE=1`; later visits show it from the session;
 * signing out ends it; a spent, expired or forged login signs nobody in.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM, apiServer, signUpForLogin } from './support/apiServer';

let app: FastifyInstance;

beforeAll(async () => {
  app = await apiServer();
});

afterAll(() => app.close());

/** One Set-Cookie header, read by its parts (RFC 6265 §5.2). */
interface SetCookie {
  name: string;
  value: string;
  attributes: Map<string, string>;
}

function setCookies(response: LightMyRequestResponse): SetCookie[] {
  const header = response.headers['set-cookie'];
  const lines = header === undefined ? [] : [header].flat();
  return lines.map((line) => {
    const [pair = '', ...rest] = line.split(';');
    const equals = pair.indexOf('=');
    return {
      name: pair.slice(0, equals).trim(),
      value: pair.slice(equals + 1).trim(),
      attributes: new Map(
        rest.map((part) => {
          const [key = '', ...value] = part.trim().split('=');
          return [key.toLowerCase(), value.join('=')];
        }),
      ),
    };
  });
}

function cookieNamed(response: LightMyRequestResponse, name: string) {
  return setCookies(response).find((cookie) => cookie.name === name);
}

/** Signs up through the API; returns the login cookie as the page writes it. */
const signUp = (fields: Record<string, string> = {}) =>
  signUpForLogin(app, fields);

const FLAGS = 'Vigil_WELCOME_MESSAGE=1; Vigil_FIRST_SIGNIN=1';

function visit(cookie: string, host = 'localhost') {
  return app.inject({ method: 'GET', url: '/', headers: { cookie, host } });
}

/** The text of the element with a test selector, or undefined when absent. */
function hook(html: string, testId: string): string | undefined {
  const match = new RegExp(
    `<(\\w+)[^>]*data-testid="${testId}"[^>]*>([\\s\\S]*?)</\\1>`,
  ).exec(html);
  return match?.[2]?.replace(/<[^>]+>/g, '').trim();
}

const ACCOUNT_HOOKS = ['account-name', 'account-email'];

describe('the first sign-in', () => {
  it('redeems the login cookie for a session, shows the account and the welcome, and clears the rest', async () => {
    const { body, login } = await signUp({
      name: 'Ada Lovelace',
      url: 'https://analytical.example/engine',
    });
    const page = await visit(`${login}; ${FLAGS}`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(hook(page.body, 'account-name')).toBe('Ada Lovelace');
    expect(hook(page.body, 'account-email')).toBe(body.get('email'));
    // The sign-up's site is the account's first (ADR-0127).
    expect(hook(page.body, 'site-url')).toBe(
      'https://analytical.example/engine',
    );
    expect(hook(page.body, 'welcome-message')).toContain(
      'https://analytical.example/engine',
    );
    expect(hook(page.body, 'sign-out')).toBe('Sign out');

    const session = cookieNamed(page, 'Vigil_SESSION');
    expect(session?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session?.attributes.has('httponly')).toBe(true);
    expect(session?.attributes.get('samesite')).toBe('Strict');
    expect(session?.attributes.get('path')).toBe('/');
    expect(session?.attributes.get('max-age')).toBe(String(365 * 24 * 3600));
    // Host-only (ADR-0028), and not Secure on localhost (R9.5).
    expect(session?.attributes.has('domain')).toBe(false);
    expect(session?.attributes.has('secure')).toBe(false);

    for (const name of [
      'VigilLogin',
      'Vigil_WELCOME_MESSAGE',
      'Vigil_FIRST_SIGNIN',
    ]) {
      const cleared = cookieNamed(page, name);
      expect(cleared?.value, name).toBe('');
      expect(cleared?.attributes.get('max-age'), name).toBe('0');
      expect(cleared?.attributes.get('path'), name).toBe('/');
    }
  });

  it('on an https PUBLIC_URL, sets the session cookie Secure and under the __Host- prefix, which no sibling subdomain can plant', async () => {
    const host = 'signup.vigil.example';
    const secure = await apiServer({ publicUrl: `https://${host}` });
    try {
      const at = (cookie: string) =>
        secure.inject({ method: 'GET', url: '/', headers: { cookie, host } });
      const { login, body } = await signUpForLogin(secure, {}, host);
      const page = await at(login);
      expect(cookieNamed(page, 'Vigil_SESSION')).toBeUndefined();
      const session = cookieNamed(page, '__Host-Vigil_SESSION');
      // What RFC 6265bis §4.1.3.2 asks of a __Host- cookie: Secure, Path=/,
      // no Domain.
      expect(session?.attributes.has('secure')).toBe(true);
      expect(session?.attributes.get('path')).toBe('/');
      expect(session?.attributes.has('domain')).toBe(false);
      expect(session?.attributes.has('httponly')).toBe(true);
      expect(cookieNamed(page, 'VigilLogin')?.attributes.has('secure')).toBe(
        true,
      );

      // The session is read under that name…
      const again = await at(`__Host-Vigil_SESSION=${session?.value}`);
      expect(hook(again.body, 'account-email')).toBe(body.get('email'));
      // …and never under the bare one, which a sibling could have written.
      const planted = await at(`Vigil_SESSION=${session?.value}`);
      expect(hook(planted.body, 'account-email')).toBeUndefined();
      expect(hook(planted.body, 'signed-out')).toContain(
        'You are not signed in',
      );
      expect(
        cookieNamed(planted, 'Vigil_SESSION')?.attributes.get('max-age'),
      ).toBe('0');

      // Signing out there ends it.
      const signOut = await secure.inject({
        method: 'POST',
        url: '/sign-out',
        headers: { host, cookie: `__Host-Vigil_SESSION=${session?.value}` },
        payload: '',
      });
      expect(signOut.statusCode).toBe(303);
      const after = await at(`__Host-Vigil_SESSION=${session?.value}`);
      expect(hook(after.body, 'account-email')).toBeUndefined();
    } finally {
      await secure.close();
    }
  });

  it('shows no welcome when the welcome cookie is not set', async () => {
    const { login } = await signUp();
    const page = await visit(login);
    expect(hook(page.body, 'account-name')).toBe('Ada Lovelace');
    expect(hook(page.body, 'welcome-message')).toBeUndefined();
  });

  it('escapes what the account holds', async () => {
    const { login } = await signUp({
      name: 'Ada "Countess" O’Neil & Co',
    });
    const page = await visit(login);
    expect(page.body).toContain('Ada &#34;Countess&#34; O’Neil &#38; Co');
  });
});

describe('later visits and signing out', () => {
  it('shows the account from the session without the welcome, then signs out for good', async () => {
    const { body, login } = await signUp();
    const first = await visit(`${login}; ${FLAGS}`);
    const session = `Vigil_SESSION=${cookieNamed(first, 'Vigil_SESSION')?.value}`;

    const again = await visit(session);
    expect(hook(again.body, 'account-email')).toBe(body.get('email'));
    expect(hook(again.body, 'welcome-message')).toBeUndefined();
    expect(again.headers['set-cookie']).toBeUndefined();

    const signOut = await app.inject({
      method: 'POST',
      url: '/sign-out',
      headers: {
        cookie: session,
        'content-type': FORM,
      },
      payload: '',
    });
    expect(signOut.statusCode).toBe(303);
    expect(signOut.headers.location).toBe('/');
    expect(
      cookieNamed(signOut, 'Vigil_SESSION')?.attributes.get('max-age'),
    ).toBe('0');

    // The session is over on the server, whatever the browser keeps.
    const after = await visit(session);
    expect(hook(after.body, 'signed-out')).toContain('You are not signed in');
    for (const testId of ACCOUNT_HOOKS) {
      expect(hook(after.body, testId), testId).toBeUndefined();
    }
    expect(cookieNamed(after, 'Vigil_SESSION')?.value).toBe('');
  });

  it('answers a sign-out without a session by going to /', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/sign-out',
      headers: { 'content-type': FORM },
      payload: '',
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/');
  });

  it('shows the signed-out page with no cookie at all', async () => {
    const page = await visit('');
    expect(hook(page.body, 'signed-out')).toContain('You are not signed in');
    expect(page.body).toContain('href="/signup"');
  });
});

describe('a login that signs nobody in', () => {
  async function expectRefused(cookie: string) {
    const page = await visit(cookie);
    expect(page.statusCode).toBe(200);
    expect(hook(page.body, 'signin-refused')).toContain(
      'We could not sign you in',
    );
    expect(page.body).toMatch(/<a href="\/signup">/);
    for (const testId of [...ACCOUNT_HOOKS, 'welcome-message', 'sign-out']) {
      expect(hook(page.body, testId), testId).toBeUndefined();
    }
    expect(cookieNamed(page, 'Vigil_SESSION')).toBeUndefined();
    return page;
  }

  it('is a login already used', async () => {
    const { login, body } = await signUp();
    await visit(login);
    const page = await expectRefused(`${login}; ${FLAGS}`);
    expect(page.body).not.toContain(body.get('email'));
    // Spent for good: the browser is told to forget it.
    expect(cookieNamed(page, 'VigilLogin')?.attributes.get('max-age')).toBe(
      '0',
    );
  });

  it('is a login past its 10 minutes', async () => {
    const { login, sid } = await signUp();
    await ageToken(sid);
    await expectRefused(login);
  });

  it.each([
    [
      'a forged token',
      { VigilToken: 'x'.repeat(43), VigilSID: crypto.randomUUID() },
    ],
    ['no sid', { VigilToken: 'x'.repeat(43) }],
    ['another product’s names', { AcmeToken: 'x', AcmeSID: 'y' }],
  ])('is %s', async (_case, value) => {
    await expectRefused(
      `VigilLogin=${encodeURIComponent(JSON.stringify(value))}`,
    );
  });

  it.each([
    ['not JSON', 'VigilLogin=%7Bnot-json'],
    ['empty', 'VigilLogin='],
  ])('is a login cookie that is %s', async (_case, cookie) => {
    await expectRefused(cookie);
  });
});

describe('HEAD /', () => {
  it('spends no token', async () => {
    const { login } = await signUp();
    const head = await app.inject({
      method: 'HEAD',
      url: '/',
      headers: { cookie: login },
    });
    expect(head.statusCode).not.toBe(200);
    const page = await visit(login);
    expect(hook(page.body, 'account-name')).toBe('Ada Lovelace');
  });
});

/** Moves a token's expiry into the past, in the server's own database. */
async function ageToken(sid: string) {
  await app.database.db
    .updateTable('one_time_tokens')
    .set({ expires_at: sql`now() - interval '1 second'` })
    .where('sid', '=', sid)
    .execute();
}
