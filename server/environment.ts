/**
 * The server's options read from the environment variables of
 * docs/contract.md ("Configuration"), in one place for `npm start`,
 * `npm run dev` and the browser tests' servers.
 */
import { resolve } from 'node:path';
import { readConfig } from '../common/config';
import type { ServerOptions } from './app';
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
 * @param env the environment (`process.env`, or a test build's variables)
 * @param distDir the built page to serve
 * @returns the options of `buildServer`: the page's configuration (for its
 *   Content-Security-Policy and cookie names), `SIGNUP_RATE_LIMIT` (default
 *   5), `RECAPTCHA_SECRET`, the database (`DATABASE_URL` or `DATA_DIR`)
 *   and `TRUST_PROXY`
 * @throws Error naming the variable when a value cannot be used
 */
export function serverOptionsFrom(
  env: ServerEnvironment,
  distDir: string,
): ServerOptions {
  const config = readConfig(env);
  return {
    distDir,
    productName: config.productName,
    rateLimit: positiveInteger(env, 'SIGNUP_RATE_LIMIT', 5),
    database: databaseSettingsFrom(env),
    trustProxy: trustProxyFrom(env),
    recaptchaSecret: env.RECAPTCHA_SECRET?.trim() || undefined,
    trackingTagUrl: config.trackingTagUrl,
    sentryDsn: config.sentryDsn,
  };
}
