/**
 * A local stand-in for a marketing/analytics tag at {@link TEST_TAG_URL}:
 * when it runs it sets the first-party cookies such tags set (Google
 * Analytics, Google Ads, Microsoft UET, Meta), host-only and, on a product
 * host, on the parent domain too, the way gtag.js does.
 */
import type { BrowserContext } from 'playwright-core';
import { TEST_COOKIE_DOMAIN, TEST_TAG_URL } from './paths';

export const FAKE_TAG_COOKIES = [
  '_ga',
  '_ga_TEST123',
  '_gid',
  '_gcl_au',
  '_uetsid',
  '_uetvid',
  '_fbp',
] as const;

/**
 * The fake tag's source: sets {@link FAKE_TAG_COOKIES} as a tag would, and
 * records in `window.__tagSawConsent` the consent commands queued for it
 * when it ran (Google's `dataLayer`, Microsoft's `uetq`), as JSON: what a
 * real tag would have read first (issue 23).
 */
export const FAKE_TAG_SCRIPT = `(() => {
  window.__tagRuns = (window.__tagRuns || 0) + 1;
  window.__tagSawConsent = JSON.stringify({
    dataLayer: (window.dataLayer || []).map((entry) => Array.from(entry)),
    uetq: window.uetq || [],
  });
  const names = ${JSON.stringify(FAKE_TAG_COOKIES)};
  for (const name of names) {
    document.cookie = name + '=tag-host-only; path=/; max-age=3600';
  }
  if (location.hostname.endsWith(${JSON.stringify(TEST_COOKIE_DOMAIN)})) {
    for (const name of ['_ga', '_fbp', '_gcl_au']) {
      document.cookie = name + '=tag-domain; path=/; max-age=3600; domain=${TEST_COOKIE_DOMAIN}';
    }
  }
})();`;

/**
 * Serves the fake tag to every page of the context and counts the requests
 * that reach its URL (the network, not only the DOM).
 *
 * @returns a function giving the number of requests so far
 */
export async function useFakeTag(
  context: BrowserContext,
): Promise<() => number> {
  let requests = 0;
  context.on('request', (request) => {
    if (request.url() === TEST_TAG_URL) requests += 1;
  });
  await context.route(TEST_TAG_URL, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/javascript',
      body: FAKE_TAG_SCRIPT,
    }),
  );
  return () => requests;
}
