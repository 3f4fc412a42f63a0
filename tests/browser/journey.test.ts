/**
 * The whole journey in Chromium, Firefox and WebKit, against the real local
 * service (tests/browser/support/engines/: one definition run per engine,
 * all three through the tests' proxy): on localhost over HTTP and on the
 * product's host over HTTPS (where cookies are Secure), each engine
 *
 * 1. signs up on `/signup` like a visitor (typing, ticking the terms,
 *    solving the fake captcha, submitting);
 * 2. lands on `/`, which spends the one-time login cookie and shows the
 *    account (name, e-mail and site as typed, the URL as sent with its
 *    protocol) with the welcome naming the site; the login cookies are
 *    replaced by the session cookie, whose attributes are read from the
 *    engine's cookie store (HttpOnly, SameSite=Strict, `/`, host-only,
 *    Secure and named `__Host-{product}_SESSION` only off localhost, 365
 *    days); axe-core finds nothing;
 * 3. reloads: the account again, without the welcome;
 * 4. signs out: the signed-out view, no session cookie, a reload stays
 *    signed out, and the ended session's cookie put back signs nobody in;
 * 5. puts the original `{product}Login` value back, exactly as the engine
 *    sent it on its first `GET /` (read through the proxy, as is the
 *    sign-up's answer it must carry): `/` refuses it, with a link to
 *    `/signup` and no account data.
 *
 * And on the product host, after signing out, Back shows no account data.
 *
 * What the pages must show comes from what the first sign-in must do (the
 * test selectors `account-name`, `account-email`, `site-url` (the first
 * of the account's sites),
 * `welcome-message`, `sign-out`, `signed-out`, `signin-refused`), not from
 * the service's output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_UP_PATH } from '../../contract/signUp';
import type { Engine } from '../../harness/engines';
import {
  startTestServer,
  type TestServer,
} from '../../harness/page/testServer';
import type { EnginePage, StoredCookie } from './support/engines/browser';
import { useEngine } from './support/engines/launch';
import { enginesUnderTest } from './support/engines/underTest';
import {
  cookiesSent,
  type SeenExchange,
  type SeenResponse,
} from './support/engines/network';
import { axeViolations, openSignUpPage, using } from './support/engines/visit';
import { typeInto } from '../../harness/model/visitor';

const DAY_SECONDS = 24 * 60 * 60;
const LOGIN = 'VigilLogin';
const WELCOME_MESSAGE = 'Vigil_WELCOME_MESSAGE';
const FIRST_SIGNIN = 'Vigil_FIRST_SIGNIN';
/**
 * The session cookie's name (ADR-0091): with the `__Host-` prefix where it is
 * Secure (the product host over HTTPS), so that no sibling subdomain can
 * plant one; without it on localhost.
 */
const sessionCookie = (https: boolean) =>
  https ? '__Host-Vigil_SESSION' : 'Vigil_SESSION';
/** How long a page may take to show what is awaited: the machine is shared. */
const POLL = { timeout: 10_000 };
/** Sign-up, five page loads, three axe runs, a sign-out: WebKit takes longest. */
const JOURNEY_TIMEOUT = 180_000;

const ORIGINS = [
  { where: 'localhost over HTTP', https: false },
  { where: 'the product host over HTTPS', https: true },
] as const;

/** What `/` shows, read through its test selectors. */
interface AccountView {
  path: string;
  /** The hooks present, sorted. */
  hooks: string[];
  name: string | null;
  email: string | null;
  site: string | null;
  /** The welcome's text, whitespace collapsed; null when not shown. */
  welcome: string | null;
  /** The `href` of every link in the page's main content. */
  links: (string | null)[];
}

/** Reads {@link AccountView} in the page (self-contained: it is serialised). */
function readAccountView(): AccountView {
  const hooks = [
    'account-email',
    'account-name',
    'sign-out',
    'signed-out',
    'signin-refused',
    'site-url',
    'welcome-message',
  ];
  const text = (hook: string) => {
    const element = document.querySelector(`[data-testid="${hook}"]`);
    return element
      ? (element.textContent ?? '').replace(/\s+/g, ' ').trim()
      : null;
  };
  return {
    path: location.pathname,
    hooks: hooks.filter(
      (hook) => document.querySelector(`[data-testid="${hook}"]`) !== null,
    ),
    name: text('account-name'),
    email: text('account-email'),
    site: text('site-url'),
    welcome: text('welcome-message'),
    links: [...document.querySelectorAll('main a')].map((link) =>
      link.getAttribute('href'),
    ),
  };
}

/** The view of `/` with no account shown: signed out, or refused. */
function noAccount(hook: 'signed-out' | 'signin-refused'): AccountView {
  return {
    path: '/',
    hooks: [hook],
    name: null,
    email: null,
    site: null,
    welcome: null,
    links: ['/signin', '/signup'],
  };
}

interface JourneyEntry {
  name: string;
  email: string;
  /** The site as typed. */
  url: string;
  /** The site as the page sends it. */
  sentUrl: string;
}

/** What a visitor types: a name and an address that must come back unchanged. */
function journeyEntry(engine: Engine, run: string): JourneyEntry {
  return {
    name: 'Zoë O’Brien-Nakamura',
    email: `Zoe.OBrien+${engine}.${run}@Example.com`,
    // Typed without a protocol: the page sends it with `https://` (R3.3).
    url: 'Status.Example.com/health?from=vigil',
    sentUrl: 'https://Status.Example.com/health?from=vigil',
  };
}

/** Fills the form as a visitor (typing, ticking, the captcha) and submits it. */
async function signUpAsAVisitor(page: EnginePage, entry: JourneyEntry) {
  await typeInto(page, 'name', entry.name);
  await typeInto(page, 'email', entry.email);
  await typeInto(page, 'url', entry.url);
  await expect(
    page.evaluate(() =>
      ['name', 'email', 'url'].map(
        (field) =>
          document.querySelector<HTMLInputElement>(
            `#signup-form input[name="${field}"]`,
          )?.value,
      ),
    ),
    'the fields hold what was typed',
  ).resolves.toEqual([entry.name, entry.email, entry.url]);
  await page.click('#signup-form input[name="tos"]');
  await page.click('[data-testid="fake-captcha"]');
  await page.click('#signup-form button[type="submit"]');
}

function named(cookies: StoredCookie[], name: string) {
  return cookies.find((cookie) => cookie.name === name);
}

function names(cookies: StoredCookie[]) {
  return cookies.map((cookie) => cookie.name).sort();
}

function isPage(exchange: SeenExchange, method: string, path: string) {
  return exchange.method === method && new URL(exchange.url).pathname === path;
}

/** Polls until the exchange's answer has come through the proxy. */
async function answerOf(exchange: SeenExchange): Promise<SeenResponse> {
  await expect.poll(() => exchange.response !== undefined, POLL).toBe(true);
  if (!exchange.response) throw new Error(`no answer to ${exchange.url}`);
  return exchange.response;
}

/**
 * Stores a cookie from the page's own script, as the sign-up page stored
 * the login cookies (js-cookie: host-only, `Path=/`, SameSite=Strict,
 * Secure over HTTPS); the same in every engine, unlike the drivers'
 * cookie commands. Resolves once the engine's cookie store holds it: a
 * script's write reaches the store that navigations read asynchronously
 * (Chromium's network service), and a navigation started at once could
 * go without it.
 */
async function storeCookieAsThePageDoes(
  page: EnginePage,
  name: string,
  value: string,
) {
  await page.evaluate(
    (cookieName: string, cookieValue: string) => {
      const secure = location.protocol === 'https:' ? '; Secure' : '';
      document.cookie = `${cookieName}=${cookieValue}; Path=/; SameSite=Strict${secure}`;
    },
    name,
    value,
  );
  await expect
    .poll(
      async () =>
        (await page.cookies()).some(
          (cookie) => cookie.name === name && cookie.value === value,
        ),
      { ...POLL, message: `${name} in the engine's cookie store` },
    )
    .toBe(true);
}

describe.each(enginesUnderTest())('%s', (engine) => {
  const suite = useEngine(engine);
  let productHost: TestServer | undefined;
  beforeAll(async () => {
    productHost = await startTestServer({ https: true });
  });
  afterAll(async () => {
    await productHost?.close();
  });

  it.each(ORIGINS)(
    'on $where: sign up, the account, reload, sign out, the spent login refused',
    async ({ https }) => {
      const origin = https ? productHost?.origin : suite.server.origin;
      if (!origin) throw new Error('no server');
      const host = new URL(origin).hostname;
      const entry = journeyEntry(engine, https ? 'tls' : 'plain');
      const SESSION = sessionCookie(https);
      const network = suite.network;
      const loadsOf = (path: string) =>
        network.exchanges.filter((exchange) => isPage(exchange, 'GET', path));
      /** The cookies the engine sent with its latest `GET /`. */
      const sentOnLastLoad = async () => {
        const load = loadsOf('/').at(-1);
        if (!load) throw new Error('no GET / went through the proxy');
        await answerOf(load);
        return cookiesSent(load);
      };
      const view = (expected: AccountView) =>
        expect
          .poll(() => page.evaluate(readAccountView), POLL)
          .toEqual(expected);

      const page = await openSignUpPage(suite, origin);
      await using(page, async () => {
        // 1. Sign up as a visitor.
        await signUpAsAVisitor(page, entry);
        await expect.poll(() => page.url(), POLL).toBe(`${origin}/`);

        expect(network.signUps).toHaveLength(1);
        const sent = new URLSearchParams(network.signUps[0]?.body);
        expect({
          name: sent.get('name'),
          email: sent.get('email'),
          url: sent.get('url'),
        }).toEqual({
          name: entry.name,
          email: entry.email,
          url: entry.sentUrl,
        });
        const signUp = network.exchanges.find((exchange) =>
          isPage(exchange, 'POST', SIGN_UP_PATH),
        );
        if (!signUp) throw new Error('the sign-up did not go through');
        const answer = await answerOf(signUp);
        expect(answer.status).toBe(200);
        const auth = (
          JSON.parse(await answer.text()) as {
            data: { one_time_auth: { token: string; sid: string } };
          }
        ).data.one_time_auth;

        // 2. `/` spends the login cookie and shows the account.
        await view({
          path: '/',
          hooks: [
            'account-email',
            'account-name',
            'sign-out',
            'site-url',
            'welcome-message',
          ],
          name: entry.name,
          email: entry.email,
          site: entry.sentUrl,
          welcome: expect.stringContaining(entry.sentUrl) as string,
          // The account's one site's page, and the form that adds another.
          links: [
            expect.stringMatching(/^\/sites\/\d+$/) as string,
            '/sites/new',
            // Where the alerts go: a channel to add (issue 60).
            '/channels/new',
          ],
        });
        expect(loadsOf('/'), 'one GET / since the sign-up').toHaveLength(1);
        const firstLoad = await sentOnLastLoad();
        // The login cookie exactly as the engine stored and sent it.
        const spentLogin = firstLoad.get(LOGIN);
        if (spentLogin === undefined) {
          throw new Error(`no ${LOGIN} sent: ${[...firstLoad.keys()]}`);
        }
        expect(
          JSON.parse(decodeURIComponent(spentLogin)),
          'the login cookie carries the answer’s token and sid (R4.3)',
        ).toEqual({ VigilToken: auth.token, VigilSID: auth.sid });
        expect(firstLoad.get(WELCOME_MESSAGE)).toBe('1');
        expect(firstLoad.get(FIRST_SIGNIN)).toBe('1');

        // The engine's jar takes the answer's Set-Cookie lines in its own
        // time (Firefox applies them in its parent process): read it until
        // it settles.
        await expect
          .poll(async () => names(await page.cookies()), {
            ...POLL,
            message: 'the login cookies replaced by the session',
          })
          .toEqual([SESSION]);
        const cookies = await page.cookies();
        const session = named(cookies, SESSION);
        expect(session).toMatchObject({
          domain: host,
          path: '/',
          httpOnly: true,
          sameSite: 'Strict',
          secure: https,
        });
        const lifetime = (session?.expires ?? 0) - Date.now() / 1000;
        expect(lifetime).toBeGreaterThan(365 * DAY_SECONDS - 120);
        expect(lifetime).toBeLessThanOrEqual(365 * DAY_SECONDS + 5);
        await expect(
          page.evaluate(() => document.cookie),
          'the session is out of the page script’s reach',
        ).resolves.not.toContain(SESSION);
        await expect(axeViolations(page)).resolves.toEqual([]);

        // 3. A reload shows the account from the session, without the welcome.
        await page.reload();
        expect(loadsOf('/'), 'the reload went to the server').toHaveLength(2);
        await view({
          path: '/',
          hooks: ['account-email', 'account-name', 'sign-out', 'site-url'],
          name: entry.name,
          email: entry.email,
          site: entry.sentUrl,
          welcome: null,
          // The account's one site's page, and the form that adds another.
          links: [
            expect.stringMatching(/^\/sites\/\d+$/) as string,
            '/sites/new',
            // Where the alerts go: a channel to add (issue 60).
            '/channels/new',
          ],
        });
        const reloaded = await sentOnLastLoad();
        expect([...reloaded.keys()].sort()).toEqual([SESSION]);
        expect(reloaded.get(SESSION)).toBe(session?.value);

        // 4. Sign out: signed out, no session cookie, and it stays so.
        await page.click('[data-testid="sign-out"]');
        await view(noAccount('signed-out'));
        const signOut = network.exchanges.find((exchange) =>
          isPage(exchange, 'POST', '/sign-out'),
        );
        expect(
          signOut && cookiesSent(signOut).get(SESSION),
          'the sign-out carried the session it ends',
        ).toBe(session?.value);
        await expect
          .poll(async () => names(await page.cookies()), {
            ...POLL,
            message: 'the session cookie cleared by the sign-out',
          })
          .toEqual([]);
        await expect(axeViolations(page)).resolves.toEqual([]);
        const loads = loadsOf('/').length;
        await page.reload();
        expect(loadsOf('/')).toHaveLength(loads + 1);
        await view(noAccount('signed-out'));
        expect([...(await sentOnLastLoad()).keys()]).toEqual([]);

        // The ended session's cookie, put back, signs nobody in.
        await storeCookieAsThePageDoes(page, SESSION, session?.value ?? '');
        await page.goto(`${origin}/`);
        expect((await sentOnLastLoad()).get(SESSION)).toBe(session?.value);
        await view(noAccount('signed-out'));

        // 5. The spent login cookie, put back as it was, is refused.
        await storeCookieAsThePageDoes(page, LOGIN, spentLogin);
        await page.goto(`${origin}/`);
        expect((await sentOnLastLoad()).get(LOGIN)).toBe(spentLogin);
        await view(noAccount('signin-refused'));
        await expect
          .poll(async () => names(await page.cookies()), {
            ...POLL,
            message:
              'no session from a refused login, and the login cookie spent',
          })
          .toEqual([]);
        await expect(axeViolations(page)).resolves.toEqual([]);
        await page.click('[data-testid="signin-refused"] a[href="/signup"]');
        await expect.poll(() => page.url(), POLL).toBe(`${origin}/signup`);
        await expect
          .poll(
            () =>
              page.evaluate(
                () => document.getElementById('signup-form') !== null,
              ),
            POLL,
          )
          .toBe(true);
      });
    },
    JOURNEY_TIMEOUT,
  );

  // Over HTTPS only: WebKit keeps even a `no-store` page of plain HTTP in
  // its back/forward cache, so on localhost Back shows the account page as
  // it was before the sign-out (a development-only difference). A page of
  // its own: in Firefox (puppeteer over BiDi), a goto after Back to a page
  // from the back/forward cache did not end within 30 s here.
  it('on the product host over HTTPS: after signing out, Back shows no account data', async () => {
    const origin = productHost?.origin;
    if (!origin) throw new Error('no server');
    const entry = journeyEntry(engine, 'back');
    const page = await openSignUpPage(suite, origin);
    await using(page, async () => {
      await signUpAsAVisitor(page, entry);
      await expect
        .poll(() => page.evaluate(readAccountView), POLL)
        .toMatchObject({ name: entry.name, email: entry.email });
      await page.click('[data-testid="sign-out"]');
      await expect
        .poll(() => page.evaluate(readAccountView), POLL)
        .toEqual(noAccount('signed-out'));
      await page.evaluate(() => {
        (window as unknown as { signedOutPage: boolean }).signedOutPage = true;
        setTimeout(() => history.back(), 0);
      });
      // Another document, from the network or the back/forward cache.
      await expect
        .poll(
          () =>
            page.evaluate(
              () =>
                !('signedOutPage' in window) &&
                document.readyState === 'complete',
            ),
          POLL,
        )
        .toBe(true);
      await expect(
        page.evaluate(readAccountView),
        'no account data after Back',
      ).resolves.toMatchObject({
        name: null,
        email: null,
        site: null,
        welcome: null,
      });
    });
  });
});
