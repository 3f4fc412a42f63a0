/**
 * The hosts the service answers to (ADR-0109): only
 * `PUBLIC_URL`'s, as Django's `ALLOWED_HOSTS` and Rails' `config.hosts`
 * do. A request that names another host in `Host` (or, from a trusted
 * proxy, `X-Forwarded-Host`) is answered 421 Misdirected Request (RFC 9110
 * §15.5.20) before any route runs, so that a DNS name pointed at the
 * service by someone else (DNS rebinding), or a proxy that forwards its own
 * `Host`, cannot reach a page, a cookie or a form. `/healthz` and
 * `/healthz/monitor` answer any host, for probes that call the instance by
 * its address.
 */
import type { onRequestHookHandler } from 'fastify';
import { isLocalhost } from '../../common/cookieNames';

/** The paths that answer any host (docs/contract.md, "HTTP"). */
export const ANY_HOST_PATHS: readonly string[] = [
  '/healthz',
  '/healthz/monitor',
];

/**
 * Whether a host name is a loopback one: `localhost` and its subdomains
 * (RFC 6761 §6.3), 127.0.0.0/8, and `[::1]`.
 *
 * @param hostname a URL's or request's host name, without port; IPv6 in
 *   brackets
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    isLocalhost(host) ||
    host === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/**
 * The rule for `Host`: `PUBLIC_URL`'s host name, in any case, on any port.
 * A loopback `PUBLIC_URL` (the development default
 * `http://localhost:1234`) accepts every loopback host, as Django does
 * with `DEBUG` and no `ALLOWED_HOSTS`.
 *
 * @param publicUrl `PUBLIC_URL`, an http(s) origin
 * @returns whether a request's host name (no port) is the service's
 */
export function allowedHost(publicUrl: string): (hostname: string) => boolean {
  const own = new URL(publicUrl).hostname.toLowerCase();
  if (isLoopbackHost(own)) return isLoopbackHost;
  return (hostname) => hostname.toLowerCase() === own;
}

/**
 * An `onRequest` hook that answers 421 to a request for another host.
 *
 * @param publicUrl `PUBLIC_URL`
 */
export function refuseOtherHosts(publicUrl: string): onRequestHookHandler {
  const allowed = allowedHost(publicUrl);
  const origin = new URL(publicUrl).origin;
  return (request, reply, done) => {
    const path = request.url.split('?', 1)[0] ?? '';
    if (ANY_HOST_PATHS.includes(path) || allowed(request.hostname)) {
      done();
      return;
    }
    // The request's Host is never repeated: it is the sender's text.
    reply
      .code(421)
      .header('cache-control', 'no-store')
      .type('text/plain; charset=utf-8')
      .send(`This service answers at ${origin} only.\n`);
  };
}
