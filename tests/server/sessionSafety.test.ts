/**
 * Sessions and links that an attacker cannot borrow (issue 46; ADR-0109 to
 * ADR-0113), through HTTP:
 *
 * - the service answers only `PUBLIC_URL`'s host, and its cookies are
 *   Secure by `PUBLIC_URL`, whatever `Host` a proxy sends;
 * - `{product}Login` is redeemed only beside the HttpOnly login binding
 *   its sign-up set, and a refused one falls through to the session and is
 *   cleared host-only and with `COOKIE_DOMAIN`;
 * - a sign-in by e-mail link ends every unproven session of the account;
 *   "Sign out everywhere" ends them all; the continue page names the
 *   address, masked;
 * - requests cannot hold a socket forever.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTION_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../server/app';
import { SIGN_UP_PATH } from '../../contract/signUp';
import {
  apiServer,
  cookiesSetBy,
  FORM,
  signUpForLogin,
  validSignUp,
} from './support/apiServer';
import {
  askSignIn as askSignInOf,
  hook,
  lastMailTo,
  type MailService,
  pathOf,
  postForm,
  SESSION_COOKIE,
  sessionCookie,
  signUpAndSignIn,
  startMailService,
  tokenOf,
} from './support/mailService';

/** One Set-Cookie line's name and attributes (RFC 6265 §5.2). */
function setCookie(response: LightMyRequestResponse, name: string) {
  const header = response.headers['set-cookie'];
  const lines = header === undefined ? [] : [header].flat();
  return lines
    .filter((line) => line.startsWith(`${name}=`))
    .map((line) => {
      const [pair = '', ...rest] = line.split(';');
      return {
        value: pair.slice(name.length + 1),
        attributes: new Map(
          rest.map((part) => {
            const [key = '', ...value] = part.trim().split('=');
            return [key.toLowerCase(), value.join('=')];
          }),
        ),
      };
    });
}

describe('the host the service answers (ADR-0109)', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = await apiServer({ publicUrl: 'https://vigil.example' });
  });

  afterAll(() => app.close());

  it('answers a request for another host, as nginx’s default proxy_pass sends it, 421 with no cookie, before any route runs', async () => {
    // A visitor's real sign-up, its cookies sent to the wrong host.
    const { login } = await signUpForLogin(app, {}, 'vigil.example');
    const home = await app.inject({
      method: 'GET',
      url: '/',
      headers: { host: 'localhost:1234', cookie: login },
    });
    expect(home.statusCode).toBe(421);
    expect(home.headers['set-cookie']).toBeUndefined();
    for (const [method, url] of [
      ['GET', '/'],
      ['GET', '/signup'],
      ['POST', SIGN_UP_PATH],
    ] as const) {
      const answer = await app.inject({
        method,
        url,
        headers: { host: 'localhost:1234', 'content-type': FORM },
        ...(method === 'POST' && { payload: validSignUp().toString() }),
      });
      expect(answer.statusCode, url).toBe(421);
      expect(answer.headers['set-cookie'], url).toBeUndefined();
      expect(answer.body, url).not.toContain('localhost');
    }
    const { count } = await app.database.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .executeTakeFirstOrThrow();
    // Only the visitor's own sign-up, at the right host.
    expect(Number(count)).toBe(1);
  });

  it('answers its own host in any case and on any port, and /healthz on any host', async () => {
    for (const host of ['vigil.example', 'VIGIL.Example:8443']) {
      const page = await app.inject({
        method: 'GET',
        url: '/',
        headers: { host },
      });
      expect(page.statusCode, host).toBe(200);
    }
    const health = await app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { host: '10.0.0.7:1234' },
    });
    expect(health.statusCode).toBe(200);
  });

  it('believes a trusted proxy’s X-Forwarded-Host, and refuses another host there too', async () => {
    const proxied = await apiServer({
      publicUrl: 'https://vigil.example',
      trustProxy: true,
    });
    try {
      const forwarded = (host: string) =>
        proxied.inject({
          method: 'GET',
          url: '/',
          headers: { host: 'localhost:1234', 'x-forwarded-host': host },
        });
      expect((await forwarded('vigil.example')).statusCode).toBe(200);
      expect((await forwarded('evil.example')).statusCode).toBe(421);
    } finally {
      await proxied.close();
    }
  });

  it('on an http PUBLIC_URL on localhost, answers every loopback name and no other', async () => {
    const local = await apiServer({ publicUrl: 'http://localhost:1234' });
    try {
      for (const [host, status] of [
        ['localhost:1234', 200],
        ['127.0.0.1:5678', 200],
        ['[::1]:1234', 200],
        ['app.localhost', 200],
        ['vigil.example', 421],
        ['127.0.0.1.nip.io', 421],
      ] as const) {
        const page = await local.inject({
          method: 'GET',
          url: '/',
          headers: { host },
        });
        expect(page.statusCode, host).toBe(status);
      }
    } finally {
      await local.close();
    }
  });

  it('sets every cookie Secure and __Host- by PUBLIC_URL, over plain http behind a TLS proxy', async () => {
    const host = 'vigil.example';
    const { login } = await signUpForLogin(app, {}, host);
    // The sign-up's answer: the login binding (ADR-0110).
    expect(login).toMatch(/__Host-Vigil_LOGIN_BINDING=[A-Za-z0-9_-]{43}/);
    const page = await app.inject({
      method: 'GET',
      url: '/',
      headers: { host, cookie: login },
    });
    const [session] = setCookie(page, '__Host-Vigil_SESSION');
    expect(session?.attributes.has('secure')).toBe(true);
    expect(session?.attributes.has('httponly')).toBe(true);
    expect(setCookie(page, 'Vigil_SESSION')).toEqual([]);
    for (const line of [page.headers['set-cookie'] ?? []].flat()) {
      expect(line, line).toMatch(/; Secure/);
    }
  });
});

describe('a login cookie someone else planted (ADR-0110)', () => {
  let app: FastifyInstance;
  const host = 'signup.vigil.example';

  beforeAll(async () => {
    app = await apiServer({
      publicUrl: `https://${host}`,
      cookieDomain: '.vigil.example',
    });
  });

  afterAll(() => app.close());

  const visit = (cookie: string) =>
    app.inject({ method: 'GET', url: '/', headers: { host, cookie } });

  /** The victim: signed up and signed in, with its session cookie. */
  async function victim(): Promise<{ email: string; session: string }> {
    const { login, body } = await signUpForLogin(app, {}, host);
    const page = await visit(login);
    const value = setCookie(page, '__Host-Vigil_SESSION')[0]?.value;
    expect(value).toBeDefined();
    return {
      email: body.get('email') ?? '',
      session: `__Host-Vigil_SESSION=${value ?? ''}`,
    };
  }

  /** The attacker's own fresh sign-up: its login cookie, without the binding. */
  async function attackerLogin(): Promise<{ login: string; email: string }> {
    const { token, sid, body } = await signUpForLogin(app, {}, host);
    return {
      email: body.get('email') ?? '',
      login: `VigilLogin=${encodeURIComponent(
        JSON.stringify({ VigilToken: token, VigilSID: sid }),
      )}`,
    };
  }

  /** The login cookie is cleared host-only and with `Domain=`. */
  function expectLoginClearedEverywhere(page: LightMyRequestResponse) {
    const cleared = setCookie(page, 'VigilLogin');
    expect(cleared.map((cookie) => cookie.attributes.get('domain'))).toEqual([
      undefined,
      'vigil.example',
    ]);
    for (const cookie of cleared) {
      expect(cookie.value).toBe('');
      expect(cookie.attributes.get('max-age')).toBe('0');
    }
  }

  it('does not swap the victim’s session for the attacker’s account (login CSRF)', async () => {
    const me = await victim();
    const planted = await attackerLogin();
    const page = await visit(`${me.session}; ${planted.login}`);
    expect(hook(page.body, 'account-email')).toBe(me.email);
    expect(page.body).not.toContain(planted.email);
    expect(setCookie(page, '__Host-Vigil_SESSION')).toEqual([]);
    expectLoginClearedEverywhere(page);
  });

  it('does not lock the victim out with garbage: the session still signs in, and the cookie is cleared', async () => {
    const me = await victim();
    const page = await visit(`${me.session}; VigilLogin=%7Bgarbage`);
    expect(hook(page.body, 'account-email')).toBe(me.email);
    expect(hook(page.body, 'signin-refused')).toBeUndefined();
    expectLoginClearedEverywhere(page);
  });

  it('signs nobody in with a binding of another token, and says so when there is no session', async () => {
    const mine = await signUpForLogin(app, {}, host);
    const planted = await attackerLogin();
    const binding = mine.login
      .split('; ')
      .find((pair) => pair.startsWith('__Host-Vigil_LOGIN_BINDING='));
    const page = await visit(`${planted.login}; ${binding ?? ''}`);
    expect(hook(page.body, 'signin-refused')).toBeDefined();
    expect(setCookie(page, '__Host-Vigil_SESSION')).toEqual([]);
    // The sign-up that holds the binding still signs in with its own token.
    const own = await visit(mine.login);
    expect(hook(own.body, 'account-email')).toBe(mine.body.get('email'));
  });

  it('redeems a real sign-up with its binding, and clears the binding', async () => {
    const { login, body } = await signUpForLogin(app, {}, host);
    const page = await visit(login);
    expect(hook(page.body, 'account-email')).toBe(body.get('email'));
    const [binding] = setCookie(page, '__Host-Vigil_LOGIN_BINDING');
    expect(binding?.attributes.get('max-age')).toBe('0');
  });

  it('sets the binding HttpOnly, host-only and for the token’s 10 minutes', async () => {
    const answer = await app.inject({
      method: 'POST',
      url: SIGN_UP_PATH,
      headers: { 'content-type': FORM, host },
      payload: validSignUp().toString(),
    });
    expect(cookiesSetBy(answer)).toHaveLength(1);
    const [binding] = setCookie(answer, '__Host-Vigil_LOGIN_BINDING');
    expect(binding?.attributes.has('httponly')).toBe(true);
    expect(binding?.attributes.has('secure')).toBe(true);
    expect(binding?.attributes.has('domain')).toBe(false);
    expect(binding?.attributes.get('path')).toBe('/');
    expect(binding?.attributes.get('samesite')).toBe('Strict');
    expect(binding?.attributes.get('max-age')).toBe(String(10 * 60));
  });
});

describe('a leaked link’s foothold (ADR-0112)', () => {
  let service: MailService;

  beforeAll(async () => {
    service = await startMailService();
  });

  afterAll(() => service.close());

  const get = (url: string, cookie?: string) =>
    service.app.inject({
      method: 'GET',
      url,
      headers: cookie === undefined ? {} : { cookie },
    });

  const askSignIn = (email: string, remoteAddress: string) =>
    askSignInOf(service.app, email, remoteAddress);

  it('ends the squatter’s session, which posted the leaked confirmation link, at the owner’s first sign-in by link', async () => {
    // The squatter signs up with the owner's address and posts the
    // confirmation link (leaked by a URL scanner) from its own session.
    const squatter = await signUpAndSignIn(service.app);
    const confirm = await lastMailTo(service, squatter.email);
    const posted = await postForm(
      service.app,
      '/link',
      { token: tokenOf(confirm) },
      { cookie: squatter.cookie },
    );
    expect(posted.statusCode).toBe(303);
    expect(hook((await get('/', squatter.cookie)).body, 'account-email')).toBe(
      squatter.email,
    );

    // The owner signs in by e-mail, in another browser.
    await askSignIn(squatter.email, '203.0.113.61');
    const link = await lastMailTo(service, squatter.email);
    const owner = await postForm(service.app, '/link', {
      token: tokenOf(link),
    });
    const ownerCookie = `${SESSION_COOKIE}=${sessionCookie(owner) ?? ''}`;

    expect(
      hook((await get('/', squatter.cookie)).body, 'signed-out'),
    ).toBeDefined();
    expect(hook((await get('/', ownerCookie)).body, 'account-email')).toBe(
      squatter.email,
    );
  });

  it('"Sign out everywhere" ends every session of the account, this one included, and no other account’s', async () => {
    const first = await signUpAndSignIn(service.app);
    const other = await signUpAndSignIn(service.app);
    await askSignIn(first.email, '203.0.113.62');
    const linked = await postForm(service.app, '/link', {
      token: tokenOf(await lastMailTo(service, first.email)),
    });
    const second = `${SESSION_COOKIE}=${sessionCookie(linked) ?? ''}`;
    const home = await get('/', second);
    expect(hook(home.body, 'sign-out-everywhere')).toBe('Sign out everywhere');

    const answer = await postForm(
      service.app,
      '/sign-out-everywhere',
      {},
      { cookie: second },
    );
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toBe('/');
    expect(
      setCookie(answer, SESSION_COOKIE)[0]?.attributes.get('max-age'),
    ).toBe('0');
    for (const cookie of [first.cookie, second]) {
      expect(hook((await get('/', cookie)).body, 'signed-out')).toBeDefined();
    }
    expect(hook((await get('/', other.cookie)).body, 'account-email')).toBe(
      other.email,
    );
  });

  it('"Sign out everywhere" spends the sign-in links already mailed, so none opens a session after it (issue 58)', async () => {
    const me = await signUpAndSignIn(service.app);
    // A confirmed account: the owner's links no longer end its sessions.
    const confirmed = await postForm(
      service.app,
      '/link',
      { token: tokenOf(await lastMailTo(service, me.email)) },
      { cookie: me.cookie },
    );
    expect(confirmed.statusCode).toBe(303);
    // A sign-in link asked for (by the owner, or by whoever read the
    // mail), not used yet.
    await askSignIn(me.email, '203.0.113.63');
    const unused = tokenOf(await lastMailTo(service, me.email));

    const answer = await postForm(
      service.app,
      '/sign-out-everywhere',
      {},
      { cookie: me.cookie },
    );
    expect(answer.statusCode).toBe(303);
    const late = await postForm(service.app, '/link', { token: unused });
    expect(sessionCookie(late)).toBeUndefined();
    expect(hook((await get('/', me.cookie)).body, 'signed-out')).toBeDefined();
  });

  it('"Sign out everywhere" from another site is refused and ends nothing', async () => {
    const me = await signUpAndSignIn(service.app);
    const forged = await postForm(
      service.app,
      '/sign-out-everywhere',
      {},
      { cookie: me.cookie, 'sec-fetch-site': 'cross-site' },
    );
    expect(forged.statusCode).toBe(403);
    expect(hook((await get('/', me.cookie)).body, 'account-email')).toBe(
      me.email,
    );
  });

  it('names the link’s address on its continue page, masked', async () => {
    const { email } = await signUpAndSignIn(service.app, {
      email: `joan.${process.pid}@example.com`,
    });
    const page = await get(pathOf(await lastMailTo(service, email)));
    expect(hook(page.body, 'link-address')).toBe('j•••@example.com');
    expect(page.body).not.toContain(email);
  });
});

describe('time limits on a request (ADR-0111)', () => {
  it('bounds a whole request and a silent connection, which Fastify leaves unbounded by default', async () => {
    const app = await apiServer();
    try {
      expect(REQUEST_TIMEOUT_MS).toBe(30_000);
      expect(CONNECTION_TIMEOUT_MS).toBe(75_000);
      expect(app.server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
      expect(app.server.timeout).toBe(CONNECTION_TIMEOUT_MS);
    } finally {
      await app.close();
    }
  });
});
