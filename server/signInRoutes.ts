/**
 * `/`, the first sign-in (docs/contract.md "HTTP"; D45, D46 in
 * docs/decisions.md): a `GET /` carrying `{product}Login` redeems its
 * one-time token once and replaces the cookie with the session cookie
 * `{product}_SESSION`; later visits show the account from the session;
 * `POST /sign-out` ends it.
 *
 * The cookies the sign-up page wrote are read here as it wrote them
 * (js-cookie's percent-encoding, D30), and cleared with the attributes they
 * were set with (host-only, `Path=/`), so the browser replaces them.
 * The session cookie's name and attributes are server/sessionCookies.ts's.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { cookieNames } from '../common/cookieNames';
import {
  ACCOUNT_STYLESHEET_PATH,
  accountPage,
  SIGN_OUT_PATH,
  type AccountPageView,
} from './accountPage';
import {
  newSecret,
  type AccountsRepository,
  type OneTimeAuth,
} from './accounts';
import { DatabaseUnavailableError } from './database';
import { checkNowNoteOf, type MonitorFeature } from './monitor/index';
import {
  clearCookie,
  sessionCookieName,
  setSessionCookie,
} from './sessionCookies';

/**
 * The account page's stylesheet: the product's look, shared with the
 * sign-up page, then the page's own rules. Both are read from the source
 * tree, by paths that hold for server/ and for the bundle in dist-server/.
 */
const STYLESHEET = [
  '../common/theme.css',
  '../server/accountPage.css',
  '../server/monitor/monitor.css',
]
  .map((path) => readFileSync(new URL(path, import.meta.url), 'utf8'))
  .join('\n');

/**
 * The token and sid in `{product}Login`'s value (D6:
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
 * Registers `GET /`, `POST /sign-out` (in a context that reads no body) and
 * the page's stylesheet. Needs @fastify/cookie registered on `app`.
 *
 * @param accounts the accounts repository
 * @param productName `PRODUCT_NAME`: the cookies' prefix and the page's name
 */
export async function registerSignInRoutes(
  app: FastifyInstance,
  {
    accounts,
    productName,
    monitorParts,
  }: {
    accounts: AccountsRepository;
    productName: string;
    /** What `/` shows of the account's watched site (server/monitor/). */
    monitorParts: MonitorFeature['pageParts'];
  },
): Promise<void> {
  const names = cookieNames(productName);

  const send = (reply: FastifyReply, view: AccountPageView) =>
    reply
      .code(view.kind === 'unavailable' ? 503 : 200)
      // Personal data: never stored by a cache.
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(accountPage(productName, view));

  async function view(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<AccountPageView> {
    const cookies = request.cookies;
    const welcome = cookies[names.welcomeMessage] === '1';
    const login = cookies[names.login];
    const sessionName = sessionCookieName(request, names.session);
    // Off localhost, a session under the bare name was not set by us (a
    // sibling subdomain may write it): it is never read, and is cleared.
    if (sessionName !== names.session && cookies[names.session] !== undefined) {
      clearCookie(request, reply, names.session);
    }
    if (login !== undefined) {
      const auth = readLoginCookie(productName, login);
      const session = newSecret();
      const account = auth ? await accounts.redeem(auth, session) : null;
      // The login cookie and the flags that came with it are spent either
      // way: a refused token is refused for good.
      clearCookie(request, reply, names.login);
      clearCookie(request, reply, names.welcomeMessage);
      clearCookie(request, reply, names.firstSignIn);
      if (!account) return { kind: 'refused' };
      setSessionCookie(request, reply, names.session, session);
      return {
        kind: 'signedIn',
        account,
        welcome,
        firstSignIn: cookies[names.firstSignIn] === '1',
        monitor: await monitorParts(account.id, undefined),
      };
    }
    const session = cookies[sessionName];
    const account = session ? await accounts.findBySession(session) : null;
    if (!account) {
      if (session !== undefined) clearCookie(request, reply, sessionName);
      return { kind: 'signedOut' };
    }
    if (welcome) clearCookie(request, reply, names.welcomeMessage);
    // The answers of "Send the link again" (server/mailRoutes.ts) and
    // "Check now" (server/monitor/).
    const { resent, check } = request.query as {
      resent?: unknown;
      check?: unknown;
    };
    return {
      kind: 'signedIn',
      account,
      welcome,
      firstSignIn: false,
      resent: resent === 'sent' || resent === 'limited' ? resent : undefined,
      monitor: await monitorParts(account.id, checkNowNoteOf(check)),
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
      .send(STYLESHEET),
  );

  // The sign-out form's body carries nothing; it is never read.
  await app.register(async (forms) => {
    forms.removeAllContentTypeParsers();
    forms.addContentTypeParser('*', (_request, _payload, done) =>
      done(null, undefined),
    );
    forms.post(SIGN_OUT_PATH, async (request, reply) => {
      const sessionName = sessionCookieName(request, names.session);
      const session = request.cookies[sessionName];
      if (session !== undefined) {
        await accounts.endSession(session);
        clearCookie(request, reply, sessionName);
      }
      return reply.code(303).header('location', '/').send();
    });
  });
}
