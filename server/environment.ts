/**
 * The server's options read from the environment variables of
 * docs/contract.md ("Configuration"), in one place for `npm start`,
 * `npm run dev` and the browser tests' servers.
 */
import { readConfig } from '../common/config';
import type { ServerOptions } from './app';

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

/**
 * @param env the environment (`process.env`, or a test build's variables)
 * @param distDir the built page to serve
 * @returns the options of `buildServer`: the page's configuration (for its
 *   Content-Security-Policy and cookie names), `SIGNUP_RATE_LIMIT` (default
 *   5) and `RECAPTCHA_SECRET`
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
    recaptchaSecret: env.RECAPTCHA_SECRET?.trim() || undefined,
    trackingTagUrl: config.trackingTagUrl,
    apiOrigin: config.apiOrigin,
    sentryDsn: config.sentryDsn,
  };
}
