/**
 * The cookies of the account pages (`/`, the mailed links' pages): their
 * attributes, and the session cookie's name (D28, D46, D91 in
 * docs/decisions.md).
 *
 * Where the session cookie is `Secure` (every host but localhost), its name
 * carries the `__Host-` prefix (RFC 6265bis §4.1.3.2): browsers keep such a
 * cookie only when it is Secure, host-only and `Path=/`, so a sibling
 * subdomain cannot plant one of its own choosing (session fixation), D91.
 */
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_LIFETIME_DAYS, isLocalhost } from '../common/cookieNames';

/**
 * The attributes of the cookies the account pages set and clear: `Path=/`,
 * host-only (D28), `SameSite=Strict`, `Secure` except on localhost (R9.4,
 * R9.5).
 */
export function baseAttributes(
  request: FastifyRequest,
): CookieSerializeOptions {
  return {
    path: '/',
    sameSite: 'strict',
    secure: !isLocalhost(request.hostname),
  };
}

/**
 * The session cookie's name for a request (D91): `__Host-{product}_SESSION`
 * where the cookie is Secure, `{product}_SESSION` on localhost, where
 * browsers keep no Secure cookie set over http.
 *
 * @param name `{product}_SESSION`
 */
export function sessionCookieName(
  request: FastifyRequest,
  name: string,
): string {
  return baseAttributes(request).secure ? `__Host-${name}` : name;
}

/** Clears a cookie set with {@link baseAttributes}. */
export function clearCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
): void {
  reply.clearCookie(name, baseAttributes(request));
}

/**
 * Sets the session cookie (D46): HttpOnly, for the session's 365 days.
 *
 * @param name `{product}_SESSION`; the `__Host-` prefix is added here
 * @param session the session's secret
 */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
  session: string,
): void {
  reply.setCookie(sessionCookieName(request, name), session, {
    ...baseAttributes(request),
    httpOnly: true,
    maxAge: DEFAULT_LIFETIME_DAYS * 24 * 60 * 60,
  });
}
