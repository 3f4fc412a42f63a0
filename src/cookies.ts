/**
 * The one module that knows every cookie of the page: names (spec section 3,
 * `{product}` = `PRODUCT_NAME`) and attributes (spec section 9):
 * `SameSite=Strict`, `Secure` except on localhost, 365 days by default and
 * 30 for the campaign, and the `COOKIE_DOMAIN` for the cookies the spec sets
 * "across all subdomains" (consent and campaign). Reads and writes go
 * through js-cookie, which encodes values as RFC 6265 cookie-octets.
 */
import Cookies from 'js-cookie';
import type { Session } from '../machines/signUpMachine';

export const DEFAULT_LIFETIME_DAYS = 365;
export const CAMPAIGN_LIFETIME_DAYS = 30;

export interface CookieJarOptions {
  productName: string;
  /** e.g. `.vigil.example`; undefined: host-only cookies everywhere. */
  cookieDomain: string | undefined;
  /** The page's host name (`location.hostname`): decides the Secure flag. */
  hostname: string;
}

/** The names of every cookie the page writes, for a product name. */
export function cookieNames(productName: string) {
  return {
    login: `${productName}Login`,
    welcomeMessage: `${productName}_WELCOME_MESSAGE`,
    firstSignIn: `${productName}_FIRST_SIGNIN`,
    consent: `${productName}_COOKIE_CONSENT`,
    campaign: `${productName}_CAMPAIGN`,
  } as const;
}

/** Whether a host is localhost, where browsers may not keep Secure cookies set over http. */
export function isLocalhost(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

/** The js-cookie attributes of one cookie. */
export function cookieAttributes(
  options: CookieJarOptions,
  { days, acrossSubdomains }: { days: number; acrossSubdomains: boolean },
): Cookies.CookieAttributes {
  return {
    expires: days,
    path: '/',
    sameSite: 'Strict',
    secure: !isLocalhost(options.hostname),
    ...(acrossSubdomains &&
      options.cookieDomain !== undefined && { domain: options.cookieDomain }),
  };
}

/**
 * Creates the page's cookie jar.
 *
 * @returns functions that write (and read) the spec's cookies; they never throw
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
     * Spec section 4, success: `{product}Login` = JSON
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
    /** The stored campaign value, if any. */
    readCampaign(): string | undefined {
      return Cookies.get(names.campaign);
    },
    /** `{product}_CAMPAIGN`, 30 days, across all subdomains (spec section 9). */
    writeCampaign(value: string): void {
      Cookies.set(
        names.campaign,
        value,
        cookieAttributes(options, {
          days: CAMPAIGN_LIFETIME_DAYS,
          acrossSubdomains: true,
        }),
      );
    },
  };
}

export type CookieJar = ReturnType<typeof createCookieJar>;
