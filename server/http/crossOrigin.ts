/**
 * Cross-site request forgery: every state-changing request (a sign-up, a
 * consent record, a sign-out, and any later form) must come from the
 * service's own pages, ADR-0088. The check reads what
 * browsers send with every request and no page can forge:
 *
 * - `Sec-Fetch-Site` (W3C Fetch Metadata Request Headers), sent by every
 *   current engine: only `same-origin`, or `none` (the visitor's own
 *   action: a bookmark, the address bar), passes;
 * - where a browser sends none, `Origin` (RFC 6454; the Fetch standard
 *   sends it with every POST): it passes when absent (a program, not a
 *   browser, which no cookie or page of ours can be lured into) or when
 *   its host is the request's own `Host`; `null` (an opaque origin: a
 *   sandboxed frame, a `data:` page) never does.
 *
 * This is the algorithm of Go's `net/http.CrossOriginProtection` (Go 1.25,
 * after Filippo Valsorda's analysis), without a list of other trusted
 * origins: the page and its APIs share one origin (ADR-0087). `SameSite=Strict`
 * on the session cookie stays as a second wall, not the only one.
 */
import type { FastifyRequest } from 'fastify';

/** The methods that change nothing (RFC 9110 §9.2.1), never checked. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A state-changing request that another site's page sent (answered 403). */
export class CrossOriginRequestError extends Error {
  readonly statusCode = 403;
  constructor() {
    super('cross-origin request refused');
    this.name = 'CrossOriginRequestError';
  }
}

/**
 * Whether a request may change state, by the rules of the module comment.
 *
 * @param method the request's method
 * @param headers its `sec-fetch-site` and `origin`, as sent (a repeated
 *   header, which no browser sends, is refused)
 * @param host the host (and port) the request was sent to: Fastify's
 *   `request.host` (`X-Forwarded-Host` behind a trusted proxy)
 * @returns true when the request is safe, same-origin, or not from a
 *   browser; false when a page of another origin sent it
 */
export function isSameOriginRequest(
  method: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  host: string,
): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  const fetchSite = headers['sec-fetch-site'];
  if (fetchSite !== undefined) {
    return fetchSite === 'same-origin' || fetchSite === 'none';
  }
  const origin = headers.origin;
  if (origin === undefined) return true;
  if (typeof origin !== 'string' || origin === 'null') return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * An `onRequest` hook that refuses, with {@link CrossOriginRequestError}, a
 * state-changing request another site's page sent, before anything reads
 * its body or counts it against a rate limit.
 */
export async function refuseCrossOrigin(
  request: FastifyRequest,
): Promise<void> {
  if (!isSameOriginRequest(request.method, request.headers, request.host)) {
    throw new CrossOriginRequestError();
  }
}
