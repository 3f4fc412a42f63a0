import { resolve } from 'node:path';

export const PROJECT_ROOT = resolve(import.meta.dirname, '../..');

/** Where the browser tests' tracking tag lives; tests route it to a fake. */
export const TEST_TAG_URL = 'https://tags.vigil-test.example/tag.js';
/** Where the browser tests' error reports go; tests route it to a recorder. */
export const TEST_SENTRY_DSN = 'https://testkey@sentry.vigil-test.example/42';

/** The product's parent domain in the browser tests; Chromium maps it to 127.0.0.1. */
export const TEST_COOKIE_DOMAIN = '.vigil.test';
/** A host under it, served over HTTPS, where cookies are Secure and domain-wide. */
export const TEST_PRODUCT_HOST = 'signup.vigil.test';

/**
 * The test pages' `CONSENT_REVISION`: raised once, as a deployment that has
 * changed its policy, so that a choice stored under revision 1 is one made
 * under an older policy and is asked again (ADR-0067).
 */
export const TEST_CONSENT_REVISION = 2;

/** The configuration of the tests' main page (ADR-0005). */
const TAGGED_ENV = {
  TRACKING_TAG_URL: TEST_TAG_URL,
  COOKIE_DOMAIN: TEST_COOKIE_DOMAIN,
  SENTRY_DSN: TEST_SENTRY_DSN,
  CONSENT_REVISION: String(TEST_CONSENT_REVISION),
};

/**
 * The page builds the browser tests drive: the configuration of
 * docs/contract.md with a tag, a cookie domain and an error-report DSN, and
 * the same without a tag or a DSN (ADR-0005); both built by
 * the browser project's global setup. `firstRevision` (`onDemand`) is the
 * tagged page as a deployment that never raised its policy's revision
 * serves it (`CONSENT_REVISION=1`, the default), built only by the file
 * that asks for it (`buildTestPage`): one test file needs it (ADR-0067).
 */
export const TEST_BUILDS = {
  tagged: {
    distDir: resolve(PROJECT_ROOT, 'dist-test'),
    env: TAGGED_ENV,
  },
  untagged: {
    distDir: resolve(PROJECT_ROOT, 'dist-test-untagged'),
    env: {
      TRACKING_TAG_URL: '',
      COOKIE_DOMAIN: TEST_COOKIE_DOMAIN,
      SENTRY_DSN: '',
      CONSENT_REVISION: String(TEST_CONSENT_REVISION),
    },
  },
  firstRevision: {
    distDir: resolve(PROJECT_ROOT, 'dist-test-revision-1'),
    env: { ...TAGGED_ENV, CONSENT_REVISION: '1' },
    onDemand: true,
  },
} as const;

export type TestBuild = keyof typeof TEST_BUILDS;
