/**
 * The product's cookie names and the rules both the page (src/platform/cookies.ts)
 * and the sign-up service (server/accounts/signInRoutes.ts) apply to them: R3.7 to
 * R3.11 and R9.1 to R9.5 in docs/requirements.md, ADR-0006 and ADR-0027 to
 * ADR-0029 and ADR-0046. `{product}` is `PRODUCT_NAME`.
 */

/** Days a cookie lives unless its rule says otherwise (R9.2). */
export const DEFAULT_LIFETIME_DAYS = 365;
/** Days the campaign cookie lives (R9.1). */
export const CAMPAIGN_LIFETIME_DAYS = 30;

/** The names of every cookie of the product, for a product name. */
export function cookieNames(productName: string) {
  return {
    login: `${productName}Login`,
    welcomeMessage: `${productName}_WELCOME_MESSAGE`,
    firstSignIn: `${productName}_FIRST_SIGNIN`,
    consent: `${productName}_COOKIE_CONSENT`,
    /** The policy revision the stored choice was made under (ADR-0067). */
    consentRevision: `${productName}_CONSENT_REVISION`,
    /** The browser's random consent id, which its records carry (ADR-0068). */
    consentId: `${productName}_CONSENT_ID`,
    campaign: `${productName}_CAMPAIGN`,
    /** The signed-in session the first sign-in at `/` sets (ADR-0046); HttpOnly. */
    session: `${productName}_SESSION`,
  } as const;
}

/**
 * Whether a host is localhost, where browsers may not keep Secure cookies
 * set over http (R9.5: the secure flag applies except on localhost).
 */
export function isLocalhost(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

/**
 * The configured cookie domain when a host lies within it (RFC 6265 §5.3
 * step 6: a browser ignores a cookie whose Domain does not domain-match
 * the host); otherwise undefined (ADR-0029). The page sets
 * its cookies "across all subdomains" with it; the service clears a
 * planted login cookie with it (ADR-0110).
 *
 * @param cookieDomain `COOKIE_DOMAIN` as configured (e.g. `.vigil.example`)
 * @param hostname the host the cookie is for
 * @returns `cookieDomain` as given, or undefined
 */
export function cookieDomainWithin(
  cookieDomain: string | undefined,
  hostname: string,
): string | undefined {
  const domain = cookieDomain?.replace(/^\./, '').toLowerCase();
  if (!domain) return undefined;
  const host = hostname.toLowerCase();
  return host === domain || host.endsWith(`.${domain}`)
    ? cookieDomain
    : undefined;
}
