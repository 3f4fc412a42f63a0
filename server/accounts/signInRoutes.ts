/**
 * `/`, the first sign-in (docs/contract.md "HTTP"; ADR-0045, ADR-0046,
 * ADR-0110, ADR-0112): a `GET /` carrying `{product}Login` and the
 * sign-up's login binding redeems its one-time token once and replaces the
 * cookie with the session cookie `{product}_SESSION`; later visits show the
 * account from the session; `POST /sign-out` ends it, and
 * `POST /sign-out-everywhere` ends every session of the account.
 *
 * The cookies the sign-up page wrote are read here as it wrote them
 * (js-cookie's percent-encoding, ADR-0030), and cleared with the attributes
 * they were set with (host-only, `Path=/`), so the browser replaces them.
 * The session cookie's name and attributes are server/accounts/sessionCookies.ts's.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ACCOUNT_STYLESHEET_PATH } from '../http/html';
import { sendPage } from '../http/forms';
import {
  accountPage,
  SIGN_OUT_EVERYWHERE_PATH,
  SIGN_OUT_PATH,
  type AccountPageParts,
  type AccountPageView,
} from './accountPage';
import {
  type AccountsRepository,
  type AccountView,
  type OneTimeAuth,
} from './accounts';
import { DatabaseUnavailableError } from '../db/unavailable';
import { newSecret } from './secrets';
import { loginBindingOf, type ServiceCookies } from './sessionCookies';
import { ACCOUNT_STYLESHEET } from '../stylesheets';

/**
 * The token and sid in `{product}Login`'s value (ADR-0006:
 * `{"{product}Token": …, "{product}SID": …}`), or undefined when the value
 * is not that JSON.
 *
 * @param value the cookie's value, percent-decoded
 */
export function readLoginCookie(
  productName: string,
  value: string | undefined,
): OneTimeAuth | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const fields = parsed as Record<string, unknown>;
  const token = fields[`${productName}Token`];
  const sid = fields[`${productName}SID`];
  return typeof token === 'string' && token !== '' && typeof sid === 'string'
    ? { token, sid }
    : undefined;
}

/**
 * Registers `GET /`, `POST /sign-out` and `POST /sign-out-everywhere` (in
 * a context that reads no body) and the page's stylesheet. Needs
 * @fastify/cookie registered on `app`.
 *
 * @param accounts the accounts repository
 * @param cookies the service's cookies (server/accounts/sessionCookies.ts)
 * @param productName `PRODUCT_NAME`: the cookies' prefix and the page's name
 */
export async function registerSignInRoutes(
  app: FastifyInstance,
  {
    accounts,
    cookies,
    productName,
    siteParts,
  }: {
    accounts: AccountsRepository;
    /** The service's cookies (server/accounts/sessionCookies.ts). */
    cookies: ServiceCookies;
    productName: string;
    /** What `/` shows of the account's watched site (server/monitor/). */
    siteParts: AccountPageParts;
  },
): Promise<void> {
  const { names } = cookies;

  // Personal data: never stored by a cache.
  const send = (reply: FastifyReply, view: AccountPageView) =>
    sendPage(
      reply,
      view.kind === 'unavailable' ? 503 : 200,
      accountPage(productName, view),
    );

  /**
   * Redeems `{product}Login` when the browser also holds the sign-up's
   * login binding for its token (ADR-0110); spends the cookies either way.
   *
   * @returns the account now signed in, or null when the login cookie was
   *   refused (garbage, planted, used, expired)
   */
  async function redeemLogin(
    request: FastifyRequest,
    reply: FastifyReply,
    login: string,
  ): Promise<AccountView | null> {
    const auth = readLoginCookie(productName, login);
    const binding = request.cookies[cookies.loginBinding];
    const bound =
      auth !== undefined &&
      binding !== undefined &&
      binding === loginBindingOf(auth.token);
    const session = newSecret();
    const account = bound ? await accounts.redeem(auth, session) : null;
    // The login cookie and the flags that came with it are spent either
    // way: a refused token is refused for good. A cookie planted with
    // `Domain=` by a sibling subdomain survives a host-only clear.
    cookies.clearEverywhere(request, reply, names.login);
    cookies.clearEverywhere(request, reply, names.welcomeMessage);
    cookies.clearEverywhere(request, reply, names.firstSignIn);
    if (binding !== undefined) cookies.clear(reply, cookies.loginBinding);
    if (account) cookies.setSession(reply, session);
    return account;
  }

  async function view(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<AccountPageView> {
    const jar = request.cookies;
    const welcome = jar[names.welcomeMessage] === '1';
    const login = jar[names.login];
    // With the prefix, a session under the bare name was not set by us (a
    // sibling subdomain may write it): it is never read, and is cleared.
    if (cookies.session !== names.session && jar[names.session] !== undefined) {
      cookies.clear(reply, names.session);
    }
    if (login !== undefined) {
      const account = await redeemLogin(request, reply, login);
      if (account) {
        return {
          kind: 'signedIn',
          account,
          welcome,
          firstSignIn: jar[names.firstSignIn] === '1',
          monitor: await siteParts(account.id, undefined),
        };
      }
    }
    // A refused login cookie falls through to the browser's own session
    // (ADR-0110): a planted one can neither replace it nor lock it out.
    const session = jar[cookies.session];
    const account = session ? await accounts.findBySession(session) : null;
    if (!account) {
      if (session !== undefined) cookies.clear(reply, cookies.session);
      return { kind: login === undefined ? 'signedOut' : 'refused' };
    }
    // The welcome belongs to a sign-up; one whose login was refused gets
    // none (its flag was spent with the login cookie).
    const welcomed = welcome && login === undefined;
    if (welcomed) cookies.clear(reply, names.welcomeMessage);
    // The answers of "Send the link again" (./links/linkRoutes.ts) and
    // "Check now" (server/monitor/).
    const { resent } = request.query as { resent?: unknown };
    return {
      kind: 'signedIn',
      account,
      welcome: welcomed,
      firstSignIn: false,
      resent: resent === 'sent' || resent === 'limited' ? resent : undefined,
      monitor: await siteParts(account.id, request.query),
    };
  }

  app.get(
    '/',
    // HEAD must not spend a one-time token.
    { exposeHeadRoute: false },
    async (request, reply) => {
      try {
        return send(reply, await view(request, reply));
      } catch (error) {
        if (!(error instanceof DatabaseUnavailableError)) throw error;
        request.log.error(error);
        // The database failed before anything was spent or set: the
        // cookies stay for the reload.
        return send(reply, { kind: 'unavailable' });
      }
    },
  );

  app.get(ACCOUNT_STYLESHEET_PATH, (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(ACCOUNT_STYLESHEET),
  );

  // The sign-out forms' bodies carry nothing; they are never read.
  await app.register(async (forms) => {
    forms.removeAllContentTypeParsers();
    forms.addContentTypeParser('*', (_request, _payload, done) =>
      done(null, undefined),
    );
    forms.post(SIGN_OUT_PATH, async (request, reply) => {
      const session = request.cookies[cookies.session];
      if (session !== undefined) {
        await accounts.endSession(session);
        cookies.clear(reply, cookies.session);
      }
      return reply.code(303).header('location', '/').send();
    });
    // ADR-0112: every session of the account ends, this one included.
    forms.post(SIGN_OUT_EVERYWHERE_PATH, async (request, reply) => {
      const session = request.cookies[cookies.session];
      if (session !== undefined) {
        await accounts.endEverySession(session);
        cookies.clear(reply, cookies.session);
      }
      return reply.code(303).header('location', '/').send();
    });
  });
}
