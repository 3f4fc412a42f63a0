/**
 * The Content-Security-Policy builder (server/http/securityHeaders.ts) and the
 * headers the local server sends with it on every route.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contentSecurityPolicyDirectives,
  parseContentSecurityPolicy,
  RECAPTCHA_FRAME_SOURCES,
  RECAPTCHA_SCRIPT_SOURCES,
  REFERRER_POLICY,
  securityHeaderOptions,
  serializeContentSecurityPolicy,
} from '../../server/http/securityHeaders';
import { SIGN_UP_PATH } from '../../contract/signUp';
import { apiServer, FORM, validSignUp } from './support/apiServer';

const TAG = 'https://tags.vigil.example/gtag/js?id=G-123';

describe('contentSecurityPolicyDirectives', () => {
  it('without a tag or error reports: the page itself and reCAPTCHA only', () => {
    expect(contentSecurityPolicyDirectives()).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'", ...RECAPTCHA_SCRIPT_SOURCES],
      'style-src': ["'self'"],
      'style-src-attr': ["'unsafe-inline'"],
      'img-src': ["'self'"],
      'connect-src': ["'self'"],
      'frame-src': [...RECAPTCHA_FRAME_SOURCES],
      'frame-ancestors': ["'none'"],
      'form-action': ["'self'"],
      'base-uri': ["'none'"],
      'object-src': ["'none'"],
    });
  });

  it("allows the build's inline blocks by their hashes, never unsafe-inline", () => {
    const inlineHashes = {
      script: ["'sha256-c2NyaXB0'"],
      style: ["'sha256-c3R5bGU='"],
    };
    const policy = contentSecurityPolicyDirectives({ inlineHashes });
    expect(policy['script-src']).toEqual([
      "'self'",
      "'sha256-c2NyaXB0'",
      ...RECAPTCHA_SCRIPT_SOURCES,
    ]);
    expect(policy['style-src']).toEqual(["'self'", "'sha256-c3R5bGU='"]);
    for (const directive of ['script-src', 'style-src'] as const) {
      expect(policy[directive]).not.toContain("'unsafe-inline'");
    }
  });

  it('lists reCAPTCHA v2 as Google documents it', () => {
    const policy = contentSecurityPolicyDirectives();
    expect(policy['script-src']).toEqual(
      expect.arrayContaining([
        'https://www.google.com/recaptcha/',
        'https://www.gstatic.com/recaptcha/',
      ]),
    );
    expect(policy['frame-src']).toEqual([
      'https://www.google.com/recaptcha/',
      'https://recaptcha.google.com/recaptcha/',
    ]);
  });

  it("adds the tag's origin to script-src, and only its origin", () => {
    const policy = contentSecurityPolicyDirectives({ trackingTagUrl: TAG });
    expect(policy['script-src']).toEqual([
      "'self'",
      ...RECAPTCHA_SCRIPT_SOURCES,
      'https://tags.vigil.example',
    ]);
    expect(policy['connect-src']).toEqual(["'self'"]);
  });

  it("adds the error-report host (the DSN's origin, without its key) to connect-src", () => {
    const policy = contentSecurityPolicyDirectives({
      sentryDsn: 'https://publickey@o1.ingest.sentry.io/42',
    });
    expect(policy['connect-src']).toEqual([
      "'self'",
      'https://o1.ingest.sentry.io',
    ]);
  });

  it("treats '' as no tag", () => {
    expect(contentSecurityPolicyDirectives({ trackingTagUrl: '' })).toEqual(
      contentSecurityPolicyDirectives(),
    );
  });

  it('never allows inline script, eval or framing by anyone', () => {
    const all = Object.values(
      contentSecurityPolicyDirectives({
        trackingTagUrl: TAG,
        sentryDsn: 'https://publickey@o1.ingest.sentry.io/42',
      }),
    ).flat();
    for (const unsafe of [
      "'unsafe-eval'",
      "'unsafe-hashes'",
      "'wasm-unsafe-eval'",
      '*',
      'data:',
      'blob:',
      'http:',
      'https:',
    ]) {
      expect(all).not.toContain(unsafe);
    }
    const policy = contentSecurityPolicyDirectives({ trackingTagUrl: TAG });
    expect(policy['script-src']).not.toContain("'unsafe-inline'");
    expect(policy['style-src']).not.toContain("'unsafe-inline'");
    expect(policy['frame-ancestors']).toEqual(["'none'"]);
  });

  it.each([
    ['TRACKING_TAG_URL', { trackingTagUrl: 'tags.example/tag.js' }],
    ['TRACKING_TAG_URL', { trackingTagUrl: 'javascript:alert(1)' }],
    ['SENTRY_DSN', { sentryDsn: "https://k@a.example; script-src 'none'" }],
    ['SENTRY_DSN', { sentryDsn: 'publickey@sentry.example/42' }],
  ])('refuses a %s that is not an http(s) URL: %j', (name, origins) => {
    expect(() => contentSecurityPolicyDirectives(origins)).toThrow(name);
  });
});

describe('serialize and parse', () => {
  it('round-trip', () => {
    const policy = contentSecurityPolicyDirectives({
      trackingTagUrl: TAG,
      sentryDsn: 'https://publickey@o1.ingest.sentry.io/42',
    });
    const header = serializeContentSecurityPolicy(policy);
    expect(header).toMatch(/^default-src 'none'; script-src 'self' https:/);
    expect(header).not.toMatch(/;\s*$/);
    expect(parseContentSecurityPolicy(header)).toEqual(policy);
  });

  it('parse reads any spacing, lower-cases names, keeps the first of a repeated directive', () => {
    expect(
      parseContentSecurityPolicy(
        "  Default-Src 'none' ;script-src 'self'  https://a.example;;script-src *; upgrade-insecure-requests",
      ),
    ).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'", 'https://a.example'],
      'upgrade-insecure-requests': [],
    });
  });
});

describe('securityHeaderOptions', () => {
  it('replaces helmet’s default policy, denies framing, sets the referrer policy and no HSTS', () => {
    const options = securityHeaderOptions({ trackingTagUrl: TAG });
    expect(options.contentSecurityPolicy).toEqual({
      useDefaults: false,
      directives: contentSecurityPolicyDirectives({ trackingTagUrl: TAG }),
    });
    expect(options.referrerPolicy).toEqual({ policy: REFERRER_POLICY });
    expect(options.xFrameOptions).toEqual({ action: 'deny' });
    expect(options.strictTransportSecurity).toBe(false);
    expect(options.xContentTypeOptions).toBe(true);
  });
});

describe('the local server', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await apiServer({ trackingTagUrl: TAG });
  });
  afterAll(() => app.close());

  const expected = contentSecurityPolicyDirectives({ trackingTagUrl: TAG });

  it.each([
    ['GET', '/signup', 200],
    ['GET', '/', 200],
    ['GET', '/account.css', 200],
    ['GET', '/healthz', 200],
    ['GET', '/no-such-page', 404],
    ['POST', SIGN_UP_PATH, 200],
    ['POST', SIGN_UP_PATH, 400],
  ] as const)(
    'sends the headers on %s %s (%i)',
    async (method, url, status) => {
      const response = await app.inject({
        method,
        url,
        ...(method === 'POST' && {
          headers: { 'content-type': FORM },
          payload: (status === 200
            ? validSignUp()
            : validSignUp({ newsletter: 'yes' })
          ).toString(),
        }),
      });
      expect(response.statusCode).toBe(status);
      const csp = response.headers['content-security-policy'];
      expect(typeof csp).toBe('string');
      expect(parseContentSecurityPolicy(String(csp))).toEqual(expected);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe(REFERRER_POLICY);
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['strict-transport-security']).toBeUndefined();
      expect(response.headers['cross-origin-resource-policy']).toBe(
        'same-origin',
      );
      // ADR-0117: every answer but the sign-up page's document keeps its opener
      // policy.
      expect(response.headers['cross-origin-opener-policy']).toBe(
        method === 'GET' && url === '/signup' ? undefined : 'same-origin',
      );
    },
  );

  it('sends the sign-up page to HEAD as to GET, without an opener policy (ADR-0117)', async () => {
    const response = await app.inject({ method: 'HEAD', url: '/signup' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cross-origin-opener-policy']).toBeUndefined();
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(
      parseContentSecurityPolicy(
        String(response.headers['content-security-policy']),
      ),
    ).toEqual(expected);
  });

  it('serves the account page with no inline style or script, and its stylesheet', async () => {
    const page = await app.inject({ url: '/' });
    expect(page.body).not.toMatch(/<style|<script|\sstyle=|\son[a-z]+=/i);
    expect(page.body).toContain('<link rel="stylesheet" href="/account.css">');
    const css = await app.inject({ url: '/account.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toContain('.card');
  });
});
