/**
 * The marketing tag's cookies, which a reject deletes (R4.9; ADR-0033).
 * Not the page's own cookies (src/platform/cookies.ts): the page
 * loads this module with the tag's other effects, as a chunk, only when a
 * choice is stored or made (src/consent/tagEffects.ts).
 */
import Cookies from 'js-cookie';

/**
 * The host itself and each parent domain of it with at least two labels
 * (`a.b.example` → `a.b.example`, `b.example`): where a tag may have set its
 * cookies. A browser refuses a public suffix as a Domain, so trying one is
 * harmless.
 */
export function candidateCookieDomains(hostname: string): string[] {
  const labels = hostname.toLowerCase().split('.');
  const domains: string[] = [];
  for (let start = 0; labels.length - start >= 2; start += 1) {
    domains.push(labels.slice(start).join('.'));
  }
  return domains;
}

/**
 * The first-party cookies that marketing and analytics tags set: Google
 * Analytics (`_ga`, `_ga_*`, `_gid`), Google Ads (`_gcl_*`), Microsoft UET
 * (`_uet*`) and Meta (`_fbp`).
 */
export const TRACKER_COOKIE = /^(?:_ga(?:_.*)?|_gid|_gcl_.*|_uet.*|_fbp)$/;

/**
 * Deletes every {@link TRACKER_COOKIE} the page can see, host-only and on
 * the host, its parent domains and the product's cookie domain when the
 * host lies within it (a Domain outside it is refused, and Firefox logs
 * each refusal as an error).
 *
 * @param hostname the page's host (`location.hostname`)
 * @param productDomain the cookie domain the host lies within
 *   (`cookieDomainFor` of src/platform/cookies.ts), or undefined
 * @returns the names it deleted
 */
export function deleteTrackerCookies(
  hostname: string,
  productDomain: string | undefined,
): string[] {
  const found = Object.keys(Cookies.get()).filter((name) =>
    TRACKER_COOKIE.test(name),
  );
  const domains = new Set([
    ...candidateCookieDomains(hostname),
    ...(productDomain ? [productDomain] : []),
  ]);
  for (const name of found) {
    Cookies.remove(name, { path: '/' });
    for (const domain of domains) Cookies.remove(name, { path: '/', domain });
  }
  return found;
}
