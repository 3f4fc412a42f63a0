/**
 * The sign-up service (docs/contract.md, "Commands" and "HTTP";
 * docs/architecture.md, "The sign-up service"), on Fastify: the page
 * (server/http/pageRoutes.ts), the first sign-in at `/`
 * (server/accounts/signInRoutes.ts), the sign-up API (server/signUp/signUpApi.ts), the
 * consent records (server/consent/consentApi.ts) and
 * `/healthz`, over the database of server/db/database.ts; every response with
 * the security headers of server/http/securityHeaders.ts and every API error in
 * the API's shape (server/http/errorAnswer.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { accountsRepository } from './accounts/accounts';
import { registerConsentApi } from './consent/consentApi';
import {
  consentRecordsRepository,
  DEFAULT_CONSENT_RETENTION_DAYS,
} from './consent/consentRecords';
import {
  openDatabase,
  type Database,
  type DatabaseSettings,
} from './db/database';
import type { CaptchaVerification } from './signUp/captcha';
import { refuseCrossOrigin } from './http/crossOrigin';
import { errorAnswer, refusal, type RaisedError } from './http/errorAnswer';
import { loggerOptions, OneLinePerRequest } from './http/logging';
import { mailLinksRepository } from './mail/mailLinks';
import { mailOutboxRepository } from './mail/mailOutbox';
import { registerMailRoutes } from './mail/mailRoutes';
import {
  mailSender,
  type MailOptions,
  type MailSender,
} from './mail/mailSender';
import { registerMonitor, type MonitorOptions } from './monitor/index';
import { registerPageRoutes } from './http/pageRoutes';
import {
  databaseRateLimitStore,
  deleteEndedWindows,
} from './db/rateLimitStore';
import { registerSignInRoutes } from './accounts/signInRoutes';
import {
  INLINE_HASHES_FILE,
  securityHeadersHook,
  type InlineHashes,
} from './http/securityHeaders';
import { BODY_LIMIT_BYTES, registerSignUpApi } from './signUp/signUpApi';
import { API_CODES } from '../contract/apiCodes';
import { refuseOtherHosts } from './http/hostCheck';
import { serviceCookies } from './accounts/sessionCookies';

export interface ServerOptions {
  /** Parcel's output folder with `index.html` and the hashed assets. */
  distDir: string;
  productName: string;
  /** Sign-ups accepted per client IP per 15 minutes (`SIGNUP_RATE_LIMIT`). */
  rateLimit: number;
  /**
   * How captcha tokens are verified (`RECAPTCHA_SECRET`,
   * `RECAPTCHA_VERIFY_URL`, `PUBLIC_URL`'s host name); undefined: not at
   * all, which server/environment.ts allows only with Google's test key.
   */
  captcha?: CaptchaVerification;
  /** Consent records accepted per client IP per 15 minutes (default 30). */
  consentRateLimit?: number;
  /**
   * Days a consent record is kept (`CONSENT_RETENTION_DAYS`; default
   * {@link DEFAULT_CONSENT_RETENTION_DAYS}).
   */
  consentRetentionDays?: number;
  /**
   * How often what has expired is deleted, in ms (default
   * {@link HOUSEKEEPING_INTERVAL_MS}).
   */
  housekeepingIntervalMs?: number;
  /**
   * How mail is sent (`SMTP_URL`, `MAIL_FROM`, `PUBLIC_URL`, the DKIM
   * variables; server/environment.ts). Undefined: mails are queued in the
   * outbox and nothing sends them (tests that are not about mail).
   */
  mail?: MailOptions;
  /**
   * Internal, for `npm run bench:api` (`VIGIL_BENCH_MAIL`): `none`, sign-ups
   * queue no mail; `queue`, mails are queued. Either way nothing is sent
   * (`mail` is ignored). Unset: mail as `mail` says.
   */
  benchMail?: 'none' | 'queue';
  /**
   * How this instance checks the watched sites (`MONITOR`,
   * `MONITOR_INTERVAL_SECONDS`, `MONITOR_CONCURRENCY`,
   * `MONITOR_ALLOWED_NETWORKS`, `MONITOR_RESOLVE`; server/monitor/).
   * Undefined: it checks nothing (`MONITOR=off`, and tests that are not
   * about the monitor); "Check now" then leaves the check to an instance
   * that does.
   */
  monitor?: MonitorOptions;
  /**
   * `PUBLIC_URL`: the one host the service answers to (D109), whether its
   * cookies are Secure, and the origin the checks' User-Agent names
   * (default: the mail options', else `http://localhost:1234`).
   */
  publicUrl?: string;
  /**
   * `COOKIE_DOMAIN`: a planted login cookie is cleared with this `Domain=`
   * too (D110). Undefined: host-only cookies only.
   */
  cookieDomain?: string | undefined;
  /**
   * How long one request may take, from its first byte to its body's last,
   * in ms (Node's `server.requestTimeout`; default
   * {@link REQUEST_TIMEOUT_MS}).
   */
  requestTimeoutMs?: number;
  /**
   * How long a connection may stay silent, in ms (Node's
   * `server.timeout`; default {@link CONNECTION_TIMEOUT_MS}).
   */
  connectionTimeoutMs?: number;
  /** Where the accounts live: `DATA_DIR` or `DATABASE_URL`. */
  database: DatabaseSettings;
  /** How long to wait for a PostgreSQL server at start (ms; default 30 s). */
  databaseStartupWaitMs?: number;
  /** Log requests and errors (server/http/logging.ts); default false. */
  logger?: boolean;
  /**
   * The proxies whose `X-Forwarded-For` gives the client's address
   * (`TRUST_PROXY`; Fastify's `trustProxy`); default none.
   */
  trustProxy?: boolean | number | string[];
  /** Serve over HTTPS with this key and certificate (PEM). */
  https?: { key: Buffer; cert: Buffer };
  /**
   * `TRACKING_TAG_URL` of the build being served: its origin is allowed to
   * run script (Content-Security-Policy). Undefined: no tag.
   */
  trackingTagUrl?: string | undefined;
  /**
   * `SENTRY_DSN` of the build being served: the page may send error reports
   * to its host (Content-Security-Policy). Undefined: no reports.
   */
  sentryDsn?: string | undefined;
}

/**
 * The hashes of the built page's inline blocks, from the build's
 * {@link INLINE_HASHES_FILE}; none when the folder has no such file (a
 * build without inline blocks).
 */
function readInlineHashes(distDir: string): InlineHashes | undefined {
  const path = join(distDir, INLINE_HASHES_FILE);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as InlineHashes;
}

/**
 * The longest one request may take, from its first byte to its body's last
 * (D111): a sign-up's form is a few hundred bytes, so 30 s is generous on
 * any link, and a body that drips a byte at a time cannot hold a socket
 * for longer. Fastify's default, 0, turns Node's own limit off.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * The longest a connection may stay silent (D111): longer than Fastify's
 * keep-alive of 72 s, so that an idle keep-alive connection is closed by
 * that rule, and a connection that never speaks by this one.
 */
export const CONNECTION_TIMEOUT_MS = 75_000;

/**
 * How often the service deletes what has expired (D89): ended rate-limit
 * windows, spent or expired tokens and links, ended or expired sessions,
 * accounts unconfirmed after 7 days (D98), consent records past their
 * retention, and the copies of mails sent 7 days ago; in milliseconds.
 */
export const HOUSEKEEPING_INTERVAL_MS = 5 * 60 * 1000;

/**
 * Builds the server (not listening yet) and opens its database, running the
 * migrations it lacks. Closing the server (`app.close()`) lets the requests
 * in flight finish, then closes the database.
 *
 * @returns a Fastify instance; call `listen({ port })` on it
 * @throws Error when `trackingTagUrl` or `sentryDsn` is not an
 *   http(s) URL; the errors of `openDatabase` (server/db/database.ts) when the
 *   database cannot be opened
 */
export async function buildServer(
  options: ServerOptions,
): Promise<FastifyInstance> {
  const trustProxy = options.trustProxy ?? false;
  const app = Fastify({
    logger: loggerOptions(options.logger ?? false),
    logController: new OneLinePerRequest(),
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    connectionTimeout: options.connectionTimeoutMs ?? CONNECTION_TIMEOUT_MS,
    // A hop count trusts that many proxies nearest the server.
    trustProxy:
      typeof trustProxy === 'number'
        ? (_address: string, hop: number) => hop < trustProxy
        : trustProxy,
    ...(options.https && { https: options.https }),
  });
  const distDir = resolve(options.distDir);

  // Anything that goes wrong answers in the API's own shape (errorAnswer).
  // Set first: plugin contexts registered later inherit it.
  app.setErrorHandler((error: RaisedError, request, reply) => {
    const { status, answer } = errorAnswer(error);
    if (status >= 500) request.log.error(error);
    return reply.code(status).send(answer);
  });
  // Unknown paths and methods (a GET of the API, a PUT…) too.
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send(refusal(API_CODES.notFound, 'path')),
  );

  app.addHook(
    'onRequest',
    securityHeadersHook({
      trackingTagUrl: options.trackingTagUrl,
      sentryDsn: options.sentryDsn,
      inlineHashes: readInlineHashes(distDir),
    }),
  );
  // After the headers (every answer carries them), before any route's own
  // hooks (the rate limit) and before any body is read: only PUBLIC_URL's
  // host is served (D109), and only forms of its own pages (D88).
  app.addHook('onRequest', refuseOtherHosts(publicUrlOf(options)));
  app.addHook('onRequest', refuseCrossOrigin);
  const database = await openDatabase(
    options.database,
    (message) => app.log.info(message),
    { startupWaitMs: options.databaseStartupWaitMs },
  );
  try {
    await registerRoutes(app, options, distDir, database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's open database (server/db/database.ts). */
    database: Database;
    /** The outbox's sender, when the service sends mail (server/mail/mailSender.ts). */
    mailSender: MailSender | undefined;
  }
}

/**
 * `PUBLIC_URL` as the options give it: its own option, else the mail's,
 * else the development default `http://localhost:1234`.
 */
export function publicUrlOf(
  options: Pick<ServerOptions, 'publicUrl' | 'mail'>,
): string {
  return (
    options.publicUrl ?? options.mail?.publicUrl ?? 'http://localhost:1234'
  );
}

async function registerRoutes(
  app: FastifyInstance,
  options: ServerOptions,
  distDir: string,
  database: Database,
): Promise<void> {
  const outbox = mailOutboxRepository(database.db);
  // Nothing is sent without mail options, nor while benchmarking without.
  const sender =
    options.mail && options.benchMail === undefined
      ? mailSender(outbox, options.mail, {
          productName: options.productName,
          embedded: database.engine === 'pglite',
          log: app.log,
        })
      : undefined;
  // After the requests in flight are answered (Fastify runs onClose hooks
  // once the server has stopped accepting and finished them): the sends in
  // flight finish and are marked, then the database closes.
  app.addHook('onClose', async () => {
    // The monitor's plugin stops its checks in its own onClose too; this
    // one makes sure they end before the database closes.
    await app.monitor?.scheduler?.stop();
    await sender?.stop();
    await database.close();
  });

  app.decorate('database', database);
  app.decorate('mailSender', sender);
  const wakeSender = () => sender?.wake();
  const accounts = accountsRepository(database.db, {
    queueConfirmation: options.benchMail !== 'none',
  });
  await app.register(cookie);
  const cookies = serviceCookies({
    publicUrl: publicUrlOf(options),
    productName: options.productName,
    cookieDomain: options.cookieDomain,
  });
  await app.register(registerMonitor, {
    db: database.db,
    embedded: database.engine === 'pglite',
    monitor: options.monitor,
    productName: options.productName,
    publicUrl: publicUrlOf(options),
    wakeSender,
    async signedInAccount(request) {
      const session = request.cookies[cookies.session];
      return session ? accounts.findBySession(session) : null;
    },
  });
  // Counted in the database, so every instance on it shares one limit
  // (server/db/rateLimitStore.ts).
  await app.register(rateLimit, {
    global: false,
    store: databaseRateLimitStore(database.db),
  });
  app.get('/healthz', async (_request, reply) => {
    const up = await database.ping();
    return reply
      .code(up ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: up ? 'ok' : 'unavailable', database: database.engine });
  });
  await registerPageRoutes(app, { distDir });
  await registerSignInRoutes(app, {
    accounts,
    cookies,
    productName: options.productName,
    monitorParts: (accountId, note) => app.monitor.pageParts(accountId, note),
  });
  await registerMailRoutes(app, {
    accounts,
    cookies,
    outbox,
    links: mailLinksRepository(database.db),
    productName: options.productName,
    wakeSender,
  });
  await registerSignUpApi(app, {
    accounts,
    cookies,
    // A sign-up queued its confirmation mail, and its site is due.
    wake: () => {
      wakeSender();
      app.monitor.wake();
    },
    rateLimit: options.rateLimit,
    ...(options.captcha && { captcha: options.captcha }),
  });
  const records = consentRecordsRepository(database.db);
  await registerConsentApi(app, {
    records,
    ...(options.consentRateLimit && { rateLimit: options.consentRateLimit }),
  });
  // Each instance deletes what has expired; the deletes touch nothing that
  // still works, so instances on one database may overlap (D89). Started
  // last, so a start that fails above leaves no timer behind.
  const retentionDays =
    options.consentRetentionDays ?? DEFAULT_CONSENT_RETENTION_DAYS;
  const housekeeping: readonly (readonly [string, () => Promise<unknown>])[] = [
    ['ended rate-limit windows', () => deleteEndedWindows(database.db)],
    ['expired tokens, links and sessions', () => accounts.deleteExpired()],
    ['accounts unconfirmed after 7 days', () => accounts.deleteUnconfirmed()],
    [
      'consent records past their retention',
      () => records.deleteOlderThan(retentionDays),
    ],
    ['copies of mails past 7 days', () => outbox.dropOldCopies()],
    // Without SMTP_URL, the mail files under DATA_DIR (D89, D100).
    ...(sender?.housekeeping ?? []),
    ...app.monitor.housekeeping,
    // Last, after the deletes: the embedded engine has no autovacuum.
    ['dead rows (the embedded engine)', () => database.vacuum()],
  ];
  // One after another, so that a delete's later batches do not queue
  // behind the VACUUM, and the embedded engine's one connection serves
  // requests between the batches (D111). A pass still running when the
  // next is due is not doubled.
  let housekeepingRunning = false;
  const cleanup = setInterval(() => {
    if (housekeepingRunning) return;
    housekeepingRunning = true;
    void (async () => {
      for (const [what, run] of housekeeping) {
        await run().catch((error: Error) =>
          app.log.warn(error, `could not delete ${what}`),
        );
      }
    })().finally(() => {
      housekeepingRunning = false;
    });
  }, options.housekeepingIntervalMs ?? HOUSEKEEPING_INTERVAL_MS).unref();
  app.addHook('onClose', async () => {
    clearInterval(cleanup);
  });
  if (sender && options.mail?.autoStart !== false) await sender.start();
}
