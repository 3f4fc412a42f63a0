/**
 * The one module that knows every cookie of the page: names (R3.7 to R3.11
 * in docs/requirements.md, `{product}` = `PRODUCT_NAME`: ADR-0006)
 * and attributes (R9.1 to R9.5, ADR-0027 to ADR-0029):
 * `SameSite=Strict`, `Secure` except on localhost, 365 days by default and
 * 30 for the campaign, and the `COOKIE_DOMAIN` for the cookies required
 * "across all subdomains" (consent and campaign). Reads and writes go
 * through js-cookie, which encodes values as RFC 6265 cookie-octets. The
 * tag's own cookies, which a reject deletes, are src/consent/trackerCookies.ts's.
 */
import Cookies from 'js-cookie';
import { storedRevisionOf } from '../../machines/consentRevision';
import { decodeChoice, encodeChoice } from '../../contract/consentChoice';
import type { Session } from '../../contract/signUp';
import {
  CAMPAIGN_LIFETIME_DAYS,
  cookieDomainWithin,
  cookieNames,
  DEFAULT_LIFETIME_DAYS,
  isLocalhost,
} from '../../common/cookieNames';
import { keptCampaign } from '../../common/campaign';

/**
 * A random (version 4) UUID, RFC 9562 §5.4: `crypto.randomUUID()` where the
 * page has it, else the same from `crypto.getRandomValues`. Browsers give
 * `randomUUID` to secure contexts only (https, localhost); a page served
 * over plain http to another host has `getRandomValues` alone, and must
 * still record a consent choice.
 *
 * @returns the UUID's text form, lowercase (`xxxxxxxx-xxxx-4xxx-Nxxx-…`,
 *   N one of 8, 9, a, b)
 */
function randomUuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  // The version (4) in the high nibble of octet 6, the variant (binary 10)
  // in the two high bits of octet 8.
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => (byte | 256).toString(16).slice(1));
  return hex.join('').replace(/(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
}

export interface CookieJarOptions {
  productName: string;
  /** e.g. `.vigil.example`; undefined: host-only cookies everywhere. */
  cookieDomain: string | undefined;
  /** The page's host name (`location.hostname`): decides the Secure flag. */
  hostname: string;
}

/**
 * The configured cookie domain when the page's host lies within it (RFC 6265
 * §5.3 step 6: a browser ignores a cookie whose Domain does not
 * domain-match the host); otherwise undefined, so that a page served on
 * another host (localhost in development) still keeps host-only cookies
 * (ADR-0029).
 */
export function cookieDomainFor(options: CookieJarOptions): string | undefined {
  return cookieDomainWithin(options.cookieDomain, options.hostname);
}

/** The js-cookie attributes of one cookie. */
export function cookieAttributes(
  options: CookieJarOptions,
  { days, acrossSubdomains }: { days: number; acrossSubdomains: boolean },
): Cookies.CookieAttributes {
  const domain = acrossSubdomains ? cookieDomainFor(options) : undefined;
  return {
    expires: days,
    path: '/',
    sameSite: 'Strict',
    secure: !isLocalhost(options.hostname),
    ...(domain !== undefined && { domain }),
  };
}

/**
 * Creates the page's cookie jar.
 *
 * @returns functions that write (and read) the required cookies; they never
 *   throw
 */
export function createCookieJar(options: CookieJarOptions) {
  const names = cookieNames(options.productName);
  const product = options.productName;
  const sessionCookie = cookieAttributes(options, {
    days: DEFAULT_LIFETIME_DAYS,
    acrossSubdomains: false,
  });

  return {
    names,
    /**
     * R4.3 (docs/requirements.md), on success: `{product}Login` = JSON
     * `{"{product}Token": token, "{product}SID": sid}`, plus
     * `{product}_WELCOME_MESSAGE=1` and `{product}_FIRST_SIGNIN=1`.
     */
    setLoginCookies(session: Session): void {
      Cookies.set(
        names.login,
        JSON.stringify({
          [`${product}Token`]: session.token,
          [`${product}SID`]: session.sid,
        }),
        sessionCookie,
      );
      Cookies.set(names.welcomeMessage, '1', sessionCookie);
      Cookies.set(names.firstSignIn, '1', sessionCookie);
    },
    /** The stored consent choice (R3.10: '1' accepted, '0' rejected). */
    readConsent(): 'accepted' | 'rejected' | 'unset' {
      const value = Cookies.get(names.consent);
      return decodeChoice(value) ?? 'unset';
    },
    /**
     * The policy revision the stored choice was made under
     * (`{product}_CONSENT_REVISION`, ADR-0067): a positive integer; undefined
     * when there is none (a choice stored before revisions were: the
     * machine counts it as revision 1); 0, older than every revision, when
     * the cookie holds anything else, so that such a choice is asked again.
     */
    readConsentRevision(): number | undefined {
      return storedRevisionOf(Cookies.get(names.consentRevision));
    },
    /**
     * The browser's consent id (`{product}_CONSENT_ID`, ADR-0068): the stored
     * one when it is a UUID, else a new random one ({@link randomUuid}:
     * outside a secure context too), stored with the consent cookie's
     * attributes. Called only for a choice the visitor makes.
     */
    consentId(): string {
      const stored = Cookies.get(names.consentId);
      // A UUID's text form (RFC 9562 §4), or near enough: the service
      // checks it exactly.
      if (stored && /^[\da-f-]{36}$/i.test(stored)) return stored;
      const id = randomUuid();
      Cookies.set(
        names.consentId,
        id,
        cookieAttributes(options, {
          days: DEFAULT_LIFETIME_DAYS,
          acrossSubdomains: true,
        }),
      );
      return id;
    },
    /**
     * `{product}_COOKIE_CONSENT`, 365 days, across all subdomains (R9.3),
     * and beside it, with the same attributes, `{product}_CONSENT_REVISION`:
     * the policy revision the choice was made under (ADR-0067).
     */
    writeConsent(choice: 'accepted' | 'rejected', revision: number): void {
      const attributes = cookieAttributes(options, {
        days: DEFAULT_LIFETIME_DAYS,
        acrossSubdomains: true,
      });
      Cookies.set(names.consent, encodeChoice(choice), attributes);
      Cookies.set(names.consentRevision, String(revision), attributes);
    },
    /**
     * The stored campaign, if the campaign rule ({@link keptCampaign}) keeps
     * it: one written before the rule, or by hand, may be too long.
     */
    readCampaign(): string | undefined {
      return keptCampaign(Cookies.get(names.campaign));
    },
    /**
     * `{product}_CAMPAIGN`, 30 days, across all subdomains (R9.1; ADR-0010):
     * the value as the campaign rule keeps it (trimmed); a value it ignores
     * leaves the stored campaign as it was.
     */
    writeCampaign(value: string): void {
      const campaign = keptCampaign(value);
      if (campaign === undefined) return;
      Cookies.set(
        names.campaign,
        campaign,
        cookieAttributes(options, {
          days: CAMPAIGN_LIFETIME_DAYS,
          acrossSubdomains: true,
        }),
      );
    },
  };
}

export type CookieJar = ReturnType<typeof createCookieJar>;
