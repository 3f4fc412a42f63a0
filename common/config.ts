/**
 * The page's configuration: one validated, frozen object read from the
 * environment variables of docs/contract.md ("Configuration"). In the browser
 * bundle Parcel inlines each `process.env.NAME` at build time; the local
 * server calls {@link readConfig} itself at start time.
 */

import { CONSENT_REVISION_MAX } from '../contract/consentRecord';
import { REVISION_PATTERN } from '../contract/formats';

/** Google's public reCAPTCHA v2 test key: always passes, shows a warning. */
export const RECAPTCHA_TEST_SITE_KEY =
  '6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI';

export interface AppConfig {
  /** The `{product}` prefix of every cookie name (R3.7 to R3.11; ADR-0006). */
  readonly productName: string;
  /** Parent domain for cookies set "across all subdomains", e.g. `.vigil.example`; undefined: host-only. */
  readonly cookieDomain: string | undefined;
  readonly recaptchaSiteKey: string;
  /** Absolute URL of the marketing/analytics tag; undefined: no tag. */
  readonly trackingTagUrl: string | undefined;
  /** Sentry DSN for error reports (R7.4; ADR-0037); undefined: none sent. */
  readonly sentryDsn: string | undefined;
  /**
   * `CONSENT_REVISION`: the privacy policy's version (ADR-0067), a positive
   * integer; a choice stored under a lower one counts as none.
   */
  readonly consentRevision: number;
}

/** The variables {@link readConfig} reads; unset and empty mean "use the default". */
export type ConfigEnvironment = Partial<
  Record<
    | 'PRODUCT_NAME'
    | 'COOKIE_DOMAIN'
    | 'RECAPTCHA_SITE_KEY'
    | 'TRACKING_TAG_URL'
    | 'API_ORIGIN'
    | 'SENTRY_DSN'
    | 'CONSENT_REVISION',
    string | undefined
  >
>;

// RFC 6265 §4.1.1: a cookie-name is an RFC 2616 token; we allow the
// conservative subset so that `{product}_CAMPAIGN` and friends stay valid.
const COOKIE_NAME_PREFIX = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
// RFC 6265 §5.2.3: a Domain attribute is a host name, with or without
// the leading dot.
const COOKIE_DOMAIN = /^\.?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * An absolute `http:` or `https:` URL from a setting (WHATWG URL parser).
 *
 * @param name the setting's name, for the message
 * @param value its value
 * @returns the parsed URL
 * @throws Error naming the setting when the value is not an absolute URL,
 *   or has another scheme
 */
export function httpUrl(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an absolute http(s) URL; got "${value}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`${name} must use http: or https:; got "${value}"`);
  }
  return url;
}

/**
 * Reads and validates the configuration.
 *
 * @param env the environment variables (all optional strings)
 * @returns a frozen {@link AppConfig} with the defaults of docs/contract.md
 *   filled in
 * @throws Error naming the variable when a value cannot be used (a product
 *   name that is not a cookie-name token, a cookie domain that is not a host
 *   name, a tag URL or DSN that is not an absolute http(s) URL, an
 *   `API_ORIGIN`, which is no longer read: ADR-0087)
 */
export function readConfig(env: ConfigEnvironment): AppConfig {
  const productName = present(env.PRODUCT_NAME) ?? 'Vigil';
  if (!COOKIE_NAME_PREFIX.test(productName)) {
    throw new Error(
      `PRODUCT_NAME must be letters, digits, "_" or "-" (it prefixes cookie names); got "${productName}"`,
    );
  }
  const cookieDomain = present(env.COOKIE_DOMAIN);
  if (cookieDomain !== undefined && !COOKIE_DOMAIN.test(cookieDomain)) {
    throw new Error(
      `COOKIE_DOMAIN must be a domain name like .vigil.example; got "${cookieDomain}"`,
    );
  }
  const trackingTagUrl = present(env.TRACKING_TAG_URL);
  if (trackingTagUrl !== undefined) httpUrl('TRACKING_TAG_URL', trackingTagUrl);
  // ADR-0087: the page and its APIs share one origin. A deployment that still
  // sets the old variable learns it now, not from sign-ups sent elsewhere.
  if (present(env.API_ORIGIN) !== undefined) {
    throw new Error(
      'API_ORIGIN is no longer read: the page sends its requests to its own origin. Route /2/ on that origin to the sign-up service, then unset API_ORIGIN',
    );
  }
  const sentryDsn = present(env.SENTRY_DSN);
  if (sentryDsn !== undefined) httpUrl('SENTRY_DSN', sentryDsn);
  const revision = present(env.CONSENT_REVISION) ?? '1';
  // A decimal integer from 1 to 2³¹−1 (what a consent record stores).
  if (
    !REVISION_PATTERN.test(revision) ||
    Number(revision) > CONSENT_REVISION_MAX
  ) {
    throw new Error(
      `CONSENT_REVISION must be a positive integer; got "${revision}"`,
    );
  }
  return Object.freeze({
    productName,
    cookieDomain,
    recaptchaSiteKey:
      present(env.RECAPTCHA_SITE_KEY) ?? RECAPTCHA_TEST_SITE_KEY,
    trackingTagUrl,
    sentryDsn,
    consentRevision: Number(revision),
  });
}

/** The variable through which the build hands the page its configuration. */
export const PAGE_CONFIG_VARIABLE = 'VIGIL_PAGE_CONFIG';

/**
 * The environment a Parcel build of the page needs beside `env`: the
 * configuration read and checked from `env`, as JSON in
 * {@link PAGE_CONFIG_VARIABLE} (src/platform/env.ts).
 *
 * @throws Error naming the variable when a setting is invalid
 */
export function pageConfigEnvironment(
  env: ConfigEnvironment,
): Record<typeof PAGE_CONFIG_VARIABLE, string> {
  return { [PAGE_CONFIG_VARIABLE]: JSON.stringify(readConfig(env)) };
}
