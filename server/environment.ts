/**
 * The server's options read from the environment variables of
 * docs/contract.md ("Configuration"), in one place for `npm start`,
 * `npm run dev` and the browser tests' servers.
 */
import { httpUrl, readConfig, RECAPTCHA_TEST_SITE_KEY } from '../common/config';
import type { ServerOptions } from './app';
import type { CaptchaVerification } from './signUp/index';
import {
  DEFAULT_CONSENT_RETENTION_DAYS,
  MIN_CONSENT_RETENTION_DAYS,
} from './consent/index';
import { createPrivateKey } from 'node:crypto';
import { isValidEmail } from '../common/emailAddress';
import { redactedUrl } from './db/database';
import {
  databaseSettingsFrom,
  protocolOf,
  type ServerEnvironment,
} from './db/settings';
import { isLoopbackHost } from './http/hostCheck';
import {
  mailDirFrom,
  type DkimSettings,
  type MailOptions,
} from './outbox/index';
import {
  monitorOptionsFrom,
  monitorWarnings,
  sitesOptionsFrom,
} from './monitor/index';

export type { ServerEnvironment } from './db/settings';
export { DEFAULT_DATA_DIR, databaseSettingsFrom } from './db/settings';
export { MAIL_DIR, mailDirFrom } from './outbox/index';

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
 * `PUBLIC_URL`: the origin visitors reach the service at, which the links in
 * mails are built from and the captcha's answers must name (never the
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
 * How captcha tokens are verified (ADR-0090), from `RECAPTCHA_SITE_KEY`,
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
 * The address part of `MAIL_FROM`, which may carry a display name
 * (`Ops <ops@vigil.example>`).
 */
function mailFromAddress(raw: string): string {
  return /<([^<>]*)>\s*$/.exec(raw)?.[1]?.trim() ?? raw;
}

/**
 * DKIM signing (RFC 6376) from `DKIM_DOMAIN`, `DKIM_SELECTOR` and
 * `DKIM_PRIVATE_KEY` (PEM; `\n` written as two characters is read as a
 * line break, as one-line environment files hold it).
 *
 * @returns undefined when none of the three is set
 * @throws Error naming the missing variables when only some are set, or
 *   `DKIM_PRIVATE_KEY` when it is not a private key
 */
export function dkimFrom(env: ServerEnvironment): DkimSettings | undefined {
  const names = ['DKIM_DOMAIN', 'DKIM_SELECTOR', 'DKIM_PRIVATE_KEY'] as const;
  const set = names.filter((name) => env[name]?.trim());
  if (set.length === 0) return undefined;
  if (set.length < names.length) {
    const missing = names.filter((name) => !set.includes(name));
    throw new Error(
      `DKIM signing needs DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY together; ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set`,
    );
  }
  const privateKey = (env.DKIM_PRIVATE_KEY ?? '').replace(/\\n/g, '\n').trim();
  try {
    createPrivateKey(privateKey);
  } catch {
    throw new Error(
      'DKIM_PRIVATE_KEY must be a private key in PEM (-----BEGIN PRIVATE KEY----- …)',
    );
  }
  return {
    domainName: (env.DKIM_DOMAIN ?? '').trim(),
    keySelector: (env.DKIM_SELECTOR ?? '').trim(),
    privateKey,
  };
}

/**
 * How the service sends mail (ADR-0095, ADR-0100, ADR-0101), from `SMTP_URL`,
 * `MAIL_FROM`, `PUBLIC_URL` and the DKIM variables.
 *
 * @param dataDir the embedded database's directory setting (`DATA_DIR`),
 *   under which mail is written without `SMTP_URL`
 * @returns SMTP when `SMTP_URL` is set; otherwise files in
 *   `$DATA_DIR/mail` (default `./data/mail`), which `npm run mail` reads
 * @throws Error naming the variable when `SMTP_URL` is not an `smtp:` or
 *   `smtps:` URL (its credentials are never repeated), when `SMTP_URL` is
 *   set without `MAIL_FROM` (a guessed sender would be refused or spoof),
 *   when `MAIL_FROM` is not an address, or when the DKIM variables are
 *   incomplete ({@link dkimFrom})
 */
export function mailOptionsFrom(env: ServerEnvironment): MailOptions {
  const publicUrl = publicUrlFrom(env);
  const smtpUrl = env.SMTP_URL?.trim();
  const from = env.MAIL_FROM?.trim();
  const dkim = dkimFrom(env);
  if (from && !isValidEmail(mailFromAddress(from))) {
    throw new Error(
      `MAIL_FROM must be an address like no-reply@vigil.example, or Vigil <no-reply@vigil.example>; got "${from}"`,
    );
  }
  if (!smtpUrl) {
    return {
      publicUrl,
      from: from ?? 'no-reply@localhost',
      transport: { kind: 'file', dir: mailDirFrom(env) },
    };
  }
  const protocol = protocolOf(smtpUrl);
  if (protocol !== 'smtp:' && protocol !== 'smtps:') {
    throw new Error(
      `SMTP_URL must be an smtp:// or smtps:// URL like smtps://user:password@smtp.example:465; got "${redactedUrl(smtpUrl, 'SMTP_URL')}"`,
    );
  }
  if (!from) {
    throw new Error(
      'SMTP_URL is set but MAIL_FROM is not: set MAIL_FROM to the address mail is sent from (e.g. no-reply@vigil.example), one your SMTP server may send as',
    );
  }
  return {
    publicUrl,
    from,
    transport: { kind: 'smtp', url: smtpUrl, ...(dkim && { dkim }) },
  };
}

/**
 * Where mail goes, as the service says at start (ADR-0100): the SMTP server
 * without its credentials, or the directory mail is written to and the
 * command that reads it.
 */
export function mailNotice(mail: MailOptions): string {
  return mail.transport.kind === 'smtp'
    ? `Mail: sent through ${redactedUrl(mail.transport.url, 'SMTP_URL')} as ${mail.from}`
    : `Mail: not sent (SMTP_URL is not set); each mail is written to ${mail.transport.dir}. Read the newest with: npm run mail`;
}

/** The oldest Node.js major the service supports (package.json `engines`). */
export const MIN_NODE_MAJOR = 24;

/**
 * The runtime line of every start, so that an operator can tell which
 * Node.js runs the service, and a warning when it is older than
 * {@link MIN_NODE_MAJOR}: such a runtime is past its end of life, or was
 * never tested (ADR-0118).
 *
 * @param version `process.version`, e.g. `v26.10.0`
 * @returns `{ notice, warning }`: the notice always ("Runtime: Node.js
 *   v26.10.0"), the warning only for a major below 24
 */
export function runtimeNotice(version: string): {
  notice: string;
  warning?: string;
} {
  const notice = `Runtime: Node.js ${version}`;
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (major >= MIN_NODE_MAJOR) return { notice };
  return {
    notice,
    warning: `Node.js ${version} is older than the ${MIN_NODE_MAJOR} this service supports (package.json "engines"): it gets no security fix, and the service was not tested on it. Run it on Node.js ${MIN_NODE_MAJOR} or later; .node-version names the one the tests run on.`,
  };
}

/**
 * `CONSENT_RETENTION_DAYS`: how long a consent record is kept (ADR-0089).
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
 * runs, but unsafely: Google's test key (no token is verified),
 * `TRUST_PROXY=true` (any client chooses its own rate-limit key), a
 * public `PUBLIC_URL` without `SMTP_URL` (no mail reaches anyone), and a
 * public `PUBLIC_URL` over plain http (no cookie can be Secure, ADR-0109).
 *
 * @param options what {@link serverOptionsFrom} read from the environment
 * @returns one message per problem, each naming its variable; none for a
 *   safe configuration
 */
export function startupWarnings(
  options: Pick<
    ServerOptions,
    'captcha' | 'trustProxy' | 'mail' | 'monitor' | 'publicUrl'
  >,
): string[] {
  const warnings: string[] = [...monitorWarnings(options.monitor)];
  const site =
    options.publicUrl === undefined ? undefined : new URL(options.publicUrl);
  if (site?.protocol === 'http:' && !isLoopbackHost(site.hostname)) {
    warnings.push(
      `PUBLIC_URL is ${site.origin}, plain http on a public host: the session cookie cannot be Secure or carry the __Host- prefix, and every visitor's session crosses the network in clear. Serve the service over https and set PUBLIC_URL to its https:// address.`,
    );
  }
  const publicHost = options.mail && new URL(options.mail.publicUrl).hostname;
  if (
    options.mail?.transport.kind === 'file' &&
    publicHost !== undefined &&
    !isLoopbackHost(publicHost)
  ) {
    warnings.push(
      `SMTP_URL is not set: no mail leaves this machine, so nobody at ${options.mail.publicUrl} can confirm an address or sign in. Set SMTP_URL and MAIL_FROM.`,
    );
  }
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
 *   `DATA_DIR`), `TRUST_PROXY`, `CONSENT_RETENTION_DAYS`, how mail is
 *   sent ({@link mailOptionsFrom}), `PUBLIC_URL` and how sites are checked
 *   (`MONITOR` and its variables: server/monitor/settings.ts)
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
    publicUrl: publicUrlFrom(env),
    // A planted login cookie is cleared with this Domain= too (ADR-0110).
    cookieDomain: config.cookieDomain,
    // The monitor (server/monitor/): on unless MONITOR=off.
    monitor: monitorOptionsFrom(env),
    sites: sitesOptionsFrom(env),
    mail: mailOptionsFrom(env),
    trackingTagUrl: config.trackingTagUrl,
    sentryDsn: config.sentryDsn,
  };
}
