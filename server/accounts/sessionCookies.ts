/**
 * The cookies the service sets and clears (ADR-0028, ADR-0046, ADR-0091,
 * ADR-0109): the session cookie, the sign-up's login binding,
 * and the clearing of the page's own cookies at `/`.
 *
 * Whether they are `Secure` is decided by `PUBLIC_URL`, never by the
 * request's `Host` (ADR-0109): behind a proxy that sends its own `Host`
 * (nginx's default `proxy_pass http://localhost:1234`), a request-based rule
 * would drop `Secure` for every visitor. On an https `PUBLIC_URL` the cookies
 * the service sets are `Secure` and carry the `__Host-` prefix (RFC 6265bis
 * §4.1.3.2): browsers keep such a cookie only when it is Secure, host-only
 * and `Path=/`, so a sibling subdomain cannot plant one of its own choosing
 * (session fixation, ADR-0091).
 */
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  cookieDomainWithin,
  cookieNames,
  DEFAULT_LIFETIME_DAYS,
} from '../../common/cookieNames';
import { ONE_TIME_TOKEN_LIFETIME_S } from './accounts';
import { secretHash } from './secrets';

/**
 * The value of the login binding for a one-time token (ADR-0110): its SHA-256,
 * base64url. The page never sees it (HttpOnly), and it names the token
 * only to a browser that already holds it.
 *
 * @param token the one-time token of `{product}Login`
 */
export function loginBindingOf(token: string): string {
  return secretHash(token).toString('base64url');
}

/**
 * The service's cookies for one deployment.
 *
 * @param settings.publicUrl `PUBLIC_URL`; https makes every cookie the
 *   service sets `Secure`, and its own cookies `__Host-`-prefixed
 * @param settings.productName `PRODUCT_NAME`: the cookies' prefix (ADR-0006)
 * @param settings.cookieDomain `COOKIE_DOMAIN` (e.g. `.vigil.example`), so
 *   that a cookie written with `Domain=` (by the page, or planted by a
 *   sibling subdomain) can be cleared too; undefined: host-only only
 */
export function serviceCookies(settings: {
  publicUrl: string;
  productName: string;
  cookieDomain?: string | undefined;
}) {
  const secure = new URL(settings.publicUrl).protocol === 'https:';
  const names = cookieNames(settings.productName);
  const own = (name: string) => (secure ? `__Host-${name}` : name);
  /** `Path=/`, host-only (ADR-0028), `SameSite=Strict`, Secure on https (R9.4). */
  const base: CookieSerializeOptions = {
    path: '/',
    sameSite: 'strict',
    secure,
  };
  const loginBinding = own(`${settings.productName}_LOGIN_BINDING`);

  return {
    /** The product's cookie names (common/cookieNames.ts). */
    names,
    /** The session cookie's name: `__Host-{product}_SESSION` on https. */
    session: own(names.session),
    /**
     * The login binding's name (ADR-0110): `__Host-{product}_LOGIN_BINDING` on
     * https. HttpOnly, set by the sign-up's answer, read once at `/`.
     */
    loginBinding,

    /** Clears a host-only cookie set with the base attributes. */
    clear(reply: FastifyReply, name: string): void {
      reply.clearCookie(name, base);
    },

    /**
     * Clears a cookie host-only and, when the request's host lies within
     * `COOKIE_DOMAIN`, with `Domain=` too: a cookie planted with `Domain=`
     * by a sibling subdomain survives a host-only clear (ADR-0110).
     */
    clearEverywhere(
      request: FastifyRequest,
      reply: FastifyReply,
      name: string,
    ): void {
      reply.clearCookie(name, base);
      const domain = cookieDomainWithin(
        settings.cookieDomain,
        request.hostname,
      );
      // RFC 6265 §5.2.3: a leading dot is ignored; it is written without.
      if (domain) {
        reply.clearCookie(name, { ...base, domain: domain.replace(/^\./, '') });
      }
    },

    /**
     * Sets the session cookie (ADR-0046): HttpOnly, for the session's 365 days.
     *
     * @param value the session's secret
     */
    setSession(reply: FastifyReply, value: string): void {
      reply.setCookie(own(names.session), value, {
        ...base,
        httpOnly: true,
        maxAge: DEFAULT_LIFETIME_DAYS * 24 * 60 * 60,
      });
    },

    /**
     * Sets the login binding of a sign-up (ADR-0110): HttpOnly, for the
     * one-time token's 10 minutes.
     *
     * @param token the one-time token the answer carries
     */
    setLoginBinding(reply: FastifyReply, token: string): void {
      reply.setCookie(loginBinding, loginBindingOf(token), {
        ...base,
        httpOnly: true,
        // As long as the token it binds (ADR-0045).
        maxAge: ONE_TIME_TOKEN_LIFETIME_S,
      });
    },
  };
}

export type ServiceCookies = ReturnType<typeof serviceCookies>;
