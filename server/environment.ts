/**
 * The server's options read from the environment variables of
 * docs/contract.md ("Configuration"), in one place for `npm start`,
 * `npm run dev` and the browser tests' servers.
 */
import { resolve } from 'node:path';
import { httpUrl, readConfig, RECAPTCHA_TEST_SITE_KEY } from '../common/config';
import type { ServerOptions } from './app';
import type { CaptchaVerification } from './captcha';
import {
  DEFAULT_CONSENT_RETENTION_DAYS,
  MIN_CONSENT_RETENTION_DAYS,
} from './consentRecords';
import type { DatabaseSettings } from './database';

/** Every variable the server reads; unset and empty mean "the default". */
export type ServerEnvironment = Partial<Record<string, string | undefined>>;

/**
 * @param name the variable's name, for the error message
 * @returns the variable as a positive integer, or `fallback` when unset
 * @throws Error naming the variable when it is not a positive integer
 */
export function positiveInteger(
  env: ServerEnvironment,
  name: string,
  fallback: number,
): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${name} must be a positive integer; got "${raw}"`);
  }
  return value;
}

/** The embedded database's directory when `DATA_DIR` is unset. */
export const DEFAULT_DATA_DIR = 'data';

/**
 * Where the accounts live: a PostgreSQL server when `DATABASE_URL` is set,
 * otherwise the embedded database in `DATA_DIR` (default `./data`,
 * relative to the working directory).
 *
 * @throws Error naming the variable when `DATABASE_URL` is not a
 *   `postgres://` or `postgresql://` URL
 */
export function databaseSettingsFrom(env: ServerEnvironment): DatabaseSettings {
  const url = env.DATABASE_URL?.trim();
  if (url) {
    let protocol: string | undefined;
    try {
      protocol = new URL(url).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
      throw new Error(
        'DATABASE_URL must be a PostgreSQL URL like postgres://user:password@host:5432/vigil',
      );
    }
    return { engine: 'postgres', url };
  }
  return {
    engine: 'pglite',
    dataDir: resolve(env.DATA_DIR?.trim() || DEFAULT_DATA_DIR),
  };
}

/**
 * Whom the service believes about the client's address
 * (`X-Forwarded-For`), which the rate limit counts by: Fastify's
 * `trustProxy`.
 *
 * @returns false when `TRUST_PROXY` is unset (the connection's own
 *   address); true for `true`; a hop count for a positive integer; else
 *   the comma-separated addresses or CIDR ranges of the proxies
 */
export function trustProxyFrom(
  env: ServerEnvironment,
): boolean | number | string[] {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return positiveInteger(env, 'TRUST_PROXY', 1);
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

/**
 * `PUBLIC_URL`: the origin visitors reach the service at, which mailed
 * links are built from and the captcha's answers must name (never the
 * request's `Host`, which a client writes).
 *
 * @returns the origin, without a trailing slash; default
 *   `http://localhost:$PORT`
 * @throws Error naming the variable when it is not an http(s) URL, or has
 *   a path, query or fragment (it is an origin)
 */
export function publicUrlFrom(env: ServerEnvironment): string {
  const raw = env.PUBLIC_URL?.trim();
  if (!raw) return `http://localhost:${positiveInteger(env, 'PORT', 1234)}`;
  const url = httpUrl('PUBLIC_URL', raw);
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new Error(
      `PUBLIC_URL must be an origin like https://vigil.example, with no path; got "${raw}"`,
    );
  }
  return url.origin;
}

/**
 * How captcha tokens are verified (D90), from `RECAPTCHA_SITE_KEY`,
 * `RECAPTCHA_SECRET`, `RECAPTCHA_VERIFY_URL` and `PUBLIC_URL`.
 *
 * @returns undefined with Google's test key and no secret (nothing is
 *   verified: {@link startupWarnings} says so); otherwise the secret, the
 *   endpoint, and the host name answers must name: `PUBLIC_URL`'s, except
 *   with the test key, for which Google answers `testkey.google.com`
 * @throws Error naming the variables when a real site key has no secret
 *   (any token would pass), when a real key is served from the default
 *   `PUBLIC_URL` (every answer would name another host), or when
 *   `RECAPTCHA_VERIFY_URL` is not an https URL
 */
export function captchaFrom(
  env: ServerEnvironment,
  siteKey: string,
): CaptchaVerification | undefined {
  const secret = env.RECAPTCHA_SECRET?.trim();
  const testKey = siteKey === RECAPTCHA_TEST_SITE_KEY;
  if (!secret) {
    if (testKey) return undefined;
    throw new Error(
      "RECAPTCHA_SITE_KEY is set to a real key but RECAPTCHA_SECRET is not: without the secret no captcha token would be verified. Set RECAPTCHA_SECRET to the key's secret (or unset RECAPTCHA_SITE_KEY to run with Google's test key, which verifies nothing)",
    );
  }
  if (!testKey && !env.PUBLIC_URL?.trim()) {
    throw new Error(
      "RECAPTCHA_SITE_KEY is set to a real key but PUBLIC_URL is not: set PUBLIC_URL to the address visitors use (e.g. https://vigil.example); the captcha's answers must name its host",
    );
  }
  const verifyUrl = env.RECAPTCHA_VERIFY_URL?.trim();
  if (
    verifyUrl &&
    httpUrl('RECAPTCHA_VERIFY_URL', verifyUrl).protocol !== 'https:' &&
    !isLoopbackUrl(verifyUrl)
  ) {
    throw new Error(
      `RECAPTCHA_VERIFY_URL must be an https URL (it carries RECAPTCHA_SECRET); got "${verifyUrl}"`,
    );
  }
  return {
    secret,
    ...(verifyUrl && { verifyUrl }),
    ...(!testKey && { hostname: new URL(publicUrlFrom(env)).hostname }),
  };
}

/** Whether a URL names this host (a local stand-in of a service). */
function isLoopbackUrl(value: string): boolean {
  const { hostname } = new URL(value);
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127\.\d+\.\d+\.\d+$/.test(hostname)
  );
}

/**
 * `CONSENT_RETENTION_DAYS`: how long a consent record is kept (D89).
 *
 * @returns days; default {@link DEFAULT_CONSENT_RETENTION_DAYS}
 * @throws Error naming the variable when it is not a whole number of days,
 *   or is shorter than the consent cookie the record proves
 *   ({@link MIN_CONSENT_RETENTION_DAYS})
 */
export function consentRetentionDaysFrom(env: ServerEnvironment): number {
  const days = positiveInteger(
    env,
    'CONSENT_RETENTION_DAYS',
    DEFAULT_CONSENT_RETENTION_DAYS,
  );
  if (days < MIN_CONSENT_RETENTION_DAYS) {
    throw new Error(
      `CONSENT_RETENTION_DAYS must be at least ${MIN_CONSENT_RETENTION_DAYS}: a record must outlive the consent cookie it proves; got "${days}"`,
    );
  }
  return days;
}

/**
 * What the service must say loudly when it starts with a configuration that
 * runs, but unsafely: Google's test key (no token is verified), and
 * `TRUST_PROXY=true` (any client chooses its own rate-limit key).
 *
 * @param options what {@link serverOptionsFrom} read from the environment
 * @returns one message per problem, each naming its variable; none for a
 *   safe configuration
 */
export function startupWarnings(
  options: Pick<ServerOptions, 'captcha' | 'trustProxy'>,
): string[] {
  const warnings: string[] = [];
  // {@link captchaFrom} leaves tokens unverified with the test key only.
  if (options.captcha === undefined) {
    warnings.push(
      "RECAPTCHA_SITE_KEY is Google's test key: captcha tokens are not verified and any non-empty token passes. Set RECAPTCHA_SITE_KEY and RECAPTCHA_SECRET to a real key before this service faces the public.",
    );
  }
  if (options.trustProxy === true) {
    warnings.push(
      'TRUST_PROXY=true believes every X-Forwarded-For entry, and the left-most one is whatever the client wrote: any client can choose the address the rate limit counts. Set TRUST_PROXY to the number of proxies in front of the service (e.g. 1) or to their addresses.',
    );
  }
  return warnings;
}

/**
 * @param env the environment (`process.env`, or a test build's variables)
 * @param distDir the built page to serve
 * @returns the options of `buildServer`: the page's configuration (for its
 *   Content-Security-Policy and cookie names), `SIGNUP_RATE_LIMIT` (default
 *   5), the captcha's verification, the database (`DATABASE_URL` or
 *   `DATA_DIR`), `TRUST_PROXY` and `CONSENT_RETENTION_DAYS`
 * @throws Error naming the variable when a value cannot be used, or when
 *   the values together would run unsafely ({@link captchaFrom})
 */
export function serverOptionsFrom(
  env: ServerEnvironment,
  distDir: string,
): ServerOptions {
  const config = readConfig(env);
  const captcha = captchaFrom(env, config.recaptchaSiteKey);
  return {
    distDir,
    productName: config.productName,
    rateLimit: positiveInteger(env, 'SIGNUP_RATE_LIMIT', 5),
    database: databaseSettingsFrom(env),
    trustProxy: trustProxyFrom(env),
    ...(captcha && { captcha }),
    consentRetentionDays: consentRetentionDaysFrom(env),
    trackingTagUrl: config.trackingTagUrl,
    sentryDsn: config.sentryDsn,
  };
}
