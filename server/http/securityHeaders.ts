/**
 * The security headers of the local server (server/app.ts): a strict
 * Content-Security-Policy built from the configuration of docs/contract.md
 * ("Configuration"), and the helmet options it is sent with.
 * The policy lists only what the sign-up page loads: its own bundle and
 * stylesheet, Google's reCAPTCHA v2, the tag at `TRACKING_TAG_URL`, its
 * own APIs and the error reports to `SENTRY_DSN`; it allows no
 * inline script, no eval and no framing.
 */
import type { onRequestHookHandler } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { httpUrl } from '../../common/config';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `false`: this route's answers carry no `Cross-Origin-Opener-Policy`
     * (every other security header is sent). Only the sign-up page's own
     * document sets it (ADR-0117).
     */
    crossOriginOpenerPolicy?: false;
  }
}

/** The parts of the configuration the policy depends on. */
export interface PageOrigins {
  /** `TRACKING_TAG_URL`: absolute URL of the tag; undefined: no tag. */
  trackingTagUrl?: string | undefined;
  /** `SENTRY_DSN`: error reports go to its host; undefined: none are sent. */
  sentryDsn?: string | undefined;
  /** Hashes of the built page's inline blocks (scripts/build.ts). */
  inlineHashes?: InlineHashes | undefined;
}

/**
 * The CSP hash sources (`'sha256-…'`) of the inline `<script>` and
 * `<style>` blocks of the built index.html, which the build writes to
 * {@link INLINE_HASHES_FILE} in the dist folder.
 */
export interface InlineHashes {
  script: string[];
  style: string[];
}

/** The file in the dist folder that holds the {@link InlineHashes}. */
export const INLINE_HASHES_FILE = 'inline-hashes.json';

/** Directive name → its sources, in the order they are sent. */
export type CspDirectives = Readonly<Record<string, readonly string[]>>;

/**
 * Where reCAPTCHA v2 loads its scripts from (`api.js` from www.google.com,
 * the widget's code from www.gstatic.com) and frames (the checkbox and the
 * challenge), as Google's reCAPTCHA FAQ lists them for a CSP.
 */
export const RECAPTCHA_SCRIPT_SOURCES = [
  'https://www.google.com/recaptcha/',
  'https://www.gstatic.com/recaptcha/',
] as const;
export const RECAPTCHA_FRAME_SOURCES = [
  'https://www.google.com/recaptcha/',
  'https://recaptcha.google.com/recaptcha/',
] as const;

/**
 * Only the origin leaves the site, and nothing is sent from HTTPS to HTTP;
 * the page's own requests keep the full URL (docs/security.md, "Security
 * headers"; ADR-0042).
 */
export const REFERRER_POLICY = 'strict-origin-when-cross-origin';

/**
 * The Content-Security-Policy of every response of the local server.
 *
 * Everything is refused (`default-src 'none'`) except: scripts from the page
 * itself, reCAPTCHA and the tag's origin, and the build's inline script by
 * its hash (no other inline script, no eval); stylesheets from the page
 * itself and the build's inline stylesheet by its hash (never
 * `'unsafe-inline'`), plus `style` attributes, which Google's
 * widget (and the tests' fake of it) sets on the elements it creates;
 * images from the page itself; requests (`fetch`) to the page itself (its
 * APIs) and the error-report host; reCAPTCHA's frames; forms posting to the
 * page itself. No
 * site may frame the page (`frame-ancestors 'none'`), `<base>` and plugins
 * are refused.
 *
 * @param origins the tag URL and Sentry DSN of the configuration,
 *   and the hashes of the built page's inline blocks
 * @returns the directives, in the order they are sent
 * @throws Error naming the variable when one is not an http(s) URL
 */
export function contentSecurityPolicyDirectives(
  origins: PageOrigins = {},
): CspDirectives {
  const tag = origins.trackingTagUrl
    ? [httpUrl('TRACKING_TAG_URL', origins.trackingTagUrl).origin]
    : [];
  // A DSN is https://key@host/project; the SDK posts to https://host/api/….
  const reports = origins.sentryDsn
    ? [httpUrl('SENTRY_DSN', origins.sentryDsn).origin]
    : [];
  const unique = (sources: string[]) => [...new Set(sources)];
  return {
    'default-src': ["'none'"],
    'script-src': unique([
      "'self'",
      ...(origins.inlineHashes?.script ?? []),
      ...RECAPTCHA_SCRIPT_SOURCES,
      ...tag,
    ]),
    'style-src': unique(["'self'", ...(origins.inlineHashes?.style ?? [])]),
    'style-src-attr': ["'unsafe-inline'"],
    'img-src': ["'self'"],
    'connect-src': unique(["'self'", ...reports]),
    'frame-src': [...RECAPTCHA_FRAME_SOURCES],
    'frame-ancestors': ["'none'"],
    'form-action': ["'self'"],
    'base-uri': ["'none'"],
    'object-src': ["'none'"],
  };
}

/**
 * Writes directives as a header value: `name source source; name source`.
 *
 * @param directives e.g. from {@link contentSecurityPolicyDirectives}
 * @returns the Content-Security-Policy header value
 */
export function serializeContentSecurityPolicy(
  directives: CspDirectives,
): string {
  return Object.entries(directives)
    .map(([name, sources]) => [name, ...sources].join(' '))
    .join('; ');
}

/**
 * Reads a Content-Security-Policy header value back into directives (CSP
 * Level 3, "parse a serialized CSP": `;`-separated, whitespace-separated,
 * names are case-insensitive, an empty directive has no sources), so a test
 * can compare what a server sends with what
 * {@link contentSecurityPolicyDirectives} says, whatever the spacing.
 *
 * @param header the header value
 * @returns the directives; a repeated directive keeps its first occurrence,
 *   as browsers do
 */
export function parseContentSecurityPolicy(header: string): CspDirectives {
  const directives: Record<string, readonly string[]> = {};
  for (const part of header.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (!name) continue;
    const key = name.toLowerCase();
    if (!(key in directives)) directives[key] = sources;
  }
  return directives;
}

/**
 * The helmet options of the sign-up service: helmet's defaults, with
 * the policy of {@link contentSecurityPolicyDirectives} instead of helmet's
 * (no `upgrade-insecure-requests`: the local server speaks plain HTTP on
 * localhost), {@link REFERRER_POLICY}, `X-Content-Type-Options: nosniff`,
 * `X-Frame-Options: DENY` for browsers without `frame-ancestors`, and no
 * `Strict-Transport-Security` (the local server is not the production host;
 * docs/security.md says what production must send).
 *
 * @param origins the tag URL and Sentry DSN of the configuration,
 *   and the hashes of the built page's inline blocks
 * @throws Error naming the variable when one is not an http(s) URL
 */
export function securityHeaderOptions(
  origins: PageOrigins = {},
): HelmetOptions {
  const directives = contentSecurityPolicyDirectives(origins);
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: Object.fromEntries(
        Object.entries(directives).map(([name, sources]) => [
          name,
          [...sources],
        ]),
      ),
    },
    referrerPolicy: { policy: REFERRER_POLICY },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: false,
    xContentTypeOptions: true,
  };
}

/**
 * A Fastify `onRequest` hook that sends {@link securityHeaderOptions}'s
 * headers on every response, through helmet; a route whose `config` says
 * `crossOriginOpenerPolicy: false` gets them all but
 * `Cross-Origin-Opener-Policy` (ADR-0117).
 * The headers are worked out once, here; @fastify/helmet would call `helmet()` again, re-reading the
 * whole policy, on every request (about 2 % of a sign-up's time under
 * load: docs/performance.md).
 *
 * @param origins as for {@link securityHeaderOptions}
 * @throws Error naming the variable when one is not an http(s) URL
 */
export function securityHeadersHook(
  origins: PageOrigins = {},
): onRequestHookHandler {
  const options = securityHeaderOptions(origins);
  const setHeaders = helmet(options);
  // ADR-0117: the sign-up page's document, which its route marks with
  // `config: { crossOriginOpenerPolicy: false }`.
  const setHeadersWithoutOpenerPolicy = helmet({
    ...options,
    crossOriginOpenerPolicy: false,
  });
  return (request, reply, done) => {
    const set =
      request.routeOptions.config.crossOriginOpenerPolicy === false
        ? setHeadersWithoutOpenerPolicy
        : setHeaders;
    // helmet 8 throws rather than passing an error on.
    set(request.raw, reply.raw, () => done());
  };
}
