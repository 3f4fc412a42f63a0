/**
 * The sign-up service (docs/contract.md, "Commands" and "HTTP";
 * docs/architecture.md, "The sign-up service"), on Fastify: the plugins
 * registered in order. What every request meets (server/http/: error
 * answers in the API's shape, security headers, the host and cross-origin
 * rules), the database (server/db/) with its housekeeping, cookies, the
 * rate limit, the outbox of notifications (server/outbox/), then each
 * feature: accounts, the first sign-in at `/` and sign-in by magic link,
 * the consent records, the monitor, the alert channels and the sign-up
 * API; the built page and `/healthz`. Each plugin closes what it opened when the service
 * closes, the last registered first, so the database closes last.
 */
import { resolve } from 'node:path';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import { accountsPlugin } from './accounts/index';
import { consentPlugin } from './consent/index';
import type { DatabaseSettings } from './db/database';
import { housekeepingPlugin } from './db/housekeeping';
import { databasePlugin } from './db/plugin';
import { rateLimitPlugin } from './rateLimit/index';
import { MIGRATIONS } from './schema';
import { outboxPlugin, type MailOptions } from './outbox/index';
import { alertsPlugin } from './alerts/index';
import { loggerOptions, OneLinePerRequest } from './http/logging';
import { pageRoutesPlugin } from './http/pageRoutes';
import { httpPlugin } from './http/plugin';
import {
  DEFAULT_SITES_PER_ACCOUNT,
  monitorPlugin,
  type MonitorOptions,
  type SitesOptions,
} from './monitor/index';
import {
  BODY_LIMIT_BYTES,
  signUpPlugin,
  type CaptchaVerification,
} from './signUp/index';

export { HOUSEKEEPING_INTERVAL_MS } from './db/housekeeping';

/** What a plugin's start may take beyond the database's wait for its server (ms). */
const PLUGIN_START_MARGIN_MS = 120_000;

/**
 * The service's settings. Those a deployment sets come from
 * server/environment.ts, which names each variable and its default
 * (docs/contract.md, "Configuration"). An option left out is off, as the
 * tests that are not about it want, or takes its feature's default.
 */
export interface ServerOptions {
  /** Parcel's output folder with `index.html` and the hashed assets. */
  distDir: string;
  productName: string;
  /** Sign-ups per client IP per 15 minutes. */
  rateLimit: number;
  /** Undefined: tokens are not verified (environment.ts allows it only with Google's test key). */
  captcha?: CaptchaVerification;
  /** Consent records per client IP per 15 minutes. */
  consentRateLimit?: number;
  consentRetentionDays?: number;
  housekeepingIntervalMs?: number;
  /** Undefined: mails wait in the outbox, and nothing sends them. */
  mail?: MailOptions;
  /** Undefined: this instance checks nothing ("Check now" leaves it to one that does). */
  monitor?: MonitorOptions;
  /** Default: 20 sites, on the monitor's interval (else 60 s). */
  sites?: SitesOptions;
  /** Default: the mail's, else `http://localhost:1234` ({@link publicUrlOf}). */
  publicUrl?: string;
  cookieDomain?: string | undefined;
  /** Node's `server.requestTimeout` (ms; default {@link REQUEST_TIMEOUT_MS}). */
  requestTimeoutMs?: number;
  /** Node's `server.timeout` (ms; default {@link CONNECTION_TIMEOUT_MS}). */
  connectionTimeoutMs?: number;
  database: DatabaseSettings;
  /** How long to wait for a PostgreSQL server at start (ms; default 30 s). */
  databaseStartupWaitMs?: number;
  logger?: boolean;
  trustProxy?: boolean | number | string[];
  https?: { key: Buffer; cert: Buffer };
  /** The built page's tag, whose origin the Content-Security-Policy allows. */
  trackingTagUrl?: string | undefined;
  /** The built page's DSN, whose host the Content-Security-Policy allows. */
  sentryDsn?: string | undefined;
}

/**
 * The longest one request may take, from its first byte to its body's last
 * (ADR-0111): a sign-up's form is a few hundred bytes, so 30 s is generous on
 * any link, and a body that drips a byte at a time cannot hold a socket
 * for longer. Fastify's default, 0, turns Node's own limit off.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * The longest a connection may stay silent (ADR-0111): longer than Fastify's
 * keep-alive of 72 s, so that an idle keep-alive connection is closed by
 * that rule, and a connection that never speaks by this one.
 */
export const CONNECTION_TIMEOUT_MS = 75_000;

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

/**
 * Builds the server (not listening yet) and opens its database, running the
 * migrations it lacks. Closing the server (`app.close()`) lets the requests
 * in flight finish, then each plugin closes what it opened, the database
 * last.
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
    // Fastify's 10 s is too short: the database may wait for a PostgreSQL
    // server, and a first start runs every migration, which took over 10 s
    // on a loaded machine. Each wait is bounded on its own; this bounds the
    // whole.
    pluginTimeout:
      (options.databaseStartupWaitMs ?? 30_000) + PLUGIN_START_MARGIN_MS,
  });
  const distDir = resolve(options.distDir);
  const publicUrl = publicUrlOf(options);
  const { productName } = options;

  // First: every context registered later inherits the error answers.
  await app.register(httpPlugin, {
    distDir,
    publicUrl,
    trackingTagUrl: options.trackingTagUrl,
    sentryDsn: options.sentryDsn,
  });
  await app.register(databasePlugin, {
    settings: options.database,
    migrations: MIGRATIONS,
    startupWaitMs: options.databaseStartupWaitMs,
  });
  try {
    await app.register(housekeepingPlugin, {
      intervalMs: options.housekeepingIntervalMs,
    });
    await app.register(cookie);
    await app.register(rateLimitPlugin);
    // Before the features, which queue deliveries and word their kinds.
    await app.register(outboxPlugin, {
      productName,
      publicUrl,
      delivery: options.mail && {
        from: options.mail.from,
        transport: options.mail.transport,
        pollIntervalMs: options.mail.pollIntervalMs,
        retry: options.mail.retry,
        autoStart: options.mail.autoStart,
      },
    });
    await app.register(accountsPlugin, {
      productName,
      publicUrl,
      cookieDomain: options.cookieDomain,
      linkMails: options.mail && { publicUrl: options.mail.publicUrl },
    });
    await app.register(consentPlugin, {
      rateLimit: options.consentRateLimit,
      retentionDays: options.consentRetentionDays,
    });
    await app.register(monitorPlugin, {
      monitor: options.monitor,
      sites: options.sites ?? {
        perAccount: DEFAULT_SITES_PER_ACCOUNT,
        intervalMs: options.monitor?.intervalMs ?? 60_000,
      },
      productName,
      publicUrl,
    });
    await app.register(alertsPlugin, { productName, publicUrl });
    await app.register(signUpPlugin, {
      rateLimit: options.rateLimit,
      captcha: options.captcha,
    });
    await app.register(pageRoutesPlugin, { distDir });
    app.get('/healthz', async (_request, reply) => {
      const up = await app.database.ping();
      return reply
        .code(up ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({
          status: up ? 'ok' : 'unavailable',
          database: app.database.engine,
        });
    });
  } catch (error) {
    // What the plugins above opened (the database, a sender, the checks)
    // is closed: a start that fails leaves nothing running.
    await app.close();
    throw error;
  }
  return app;
}
