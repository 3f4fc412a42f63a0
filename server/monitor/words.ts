/**
 * The monitor's words: what a check found and when, in English, made only
 * where a page or a mail is rendered. The check and the machine carry
 * data (a reason code, machines/monitorMachine.ts's DownCause), so a
 * change here reaches the incidents already open and the alerts not yet
 * sent. The pages (./page.ts, ./sitePages.ts) and the alerts' wording
 * (./alertNotices.ts) read it.
 */
import { STATUS_CODES } from 'node:http';
import type { DownCause } from '../../machines/monitorMachine';
import { causeOf, type CheckResult } from './check/siteCheck';

/**
 * The checks' User-Agent (ADR-0103): the product, the monitor's version, and
 * where to read about it, so that a site's owner can allow or refuse it.
 *
 * @param productName `PRODUCT_NAME`; characters a token (RFC 9110 §5.6.2)
 *   cannot hold are dropped, `Vigil` when none is left
 * @param publicUrl `PUBLIC_URL`
 * @returns e.g. `Vigil-Monitor/1 (+https://vigil.example)`
 */
export function monitorUserAgent(
  productName: string,
  publicUrl: string,
): string {
  const product =
    productName.replace(/[^A-Za-z0-9!#$%&'*+.^_`|~-]+/g, '') || 'Vigil';
  return `${product}-Monitor/1 (+${publicUrl})`;
}

/**
 * The formats of {@link momentInWords} and {@link dayInWords}, made once:
 * `toLocaleTimeString` makes a formatter at each call, and an incident's
 * thousands of alerts spent 2 % of the service's thread there
 * (`npm run bench:alerts`, profiled).
 */
const TIME_FORMAT = new Intl.DateTimeFormat('en-GB', {
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
});
const DAY_FORMAT = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A moment as the alerts and pages write it: `14:02 UTC on 29 November 2026`. */
export function momentInWords(iso: string): string {
  return `${TIME_FORMAT.format(new Date(iso))} UTC on ${dayInWords(iso)}`;
}

/** A day as the pages and mails write it: `5 December 2026`, the day in UTC. */
export function dayInWords(iso: string): string {
  return DAY_FORMAT.format(new Date(iso));
}

/**
 * A length of time in words, to the minute (under a minute: seconds):
 * `45 seconds`, `1 minute`, `2 hours 5 minutes`, `3 days 4 hours`.
 *
 * @param ms the length in milliseconds (negative is read as 0)
 */
export function durationInWords(ms: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return unit(seconds, 'second');
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return unit(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 24) {
    const rest = minutes % 60;
    return rest
      ? `${unit(hours, 'hour')} ${unit(rest, 'minute')}`
      : unit(hours, 'hour');
  }
  const days = Math.floor(hours / 24);
  const restHours = hours % 24;
  return restHours
    ? `${unit(days, 'day')} ${unit(restHours, 'hour')}`
    : unit(days, 'day');
}

/**
 * How often a site is checked, in words: `every minute`, `every 5
 * minutes`, `every hour`, `every 30 seconds`, `every 2 hours`.
 *
 * @param seconds the interval, in whole seconds
 */
export function intervalInWords(seconds: number): string {
  const every = (n: number, word: string) =>
    n === 1 ? `every ${word}` : `every ${n} ${word}s`;
  if (seconds % 3600 === 0) return every(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return every(seconds / 60, 'minute');
  return every(seconds, 'second');
}

/**
 * How long ago, in words: `just now`, `45 seconds ago`, `3 minutes ago`,
 * `2 hours ago`, `5 days ago`.
 *
 * @param ms the time since, in milliseconds
 */
export function agoInWords(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 5) return 'just now';
  const unit = (n: number, word: string) =>
    `${n} ${word}${n === 1 ? '' : 's'} ago`;
  if (seconds < 60) return unit(seconds, 'second');
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return unit(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return unit(hours, 'hour');
  return unit(Math.floor(hours / 24), 'day');
}

/** "0.3 s", "10 s" */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** Codes that mean the chain does not lead to a root the monitor trusts. */
const UNTRUSTED_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_CA',
]);

/** Statuses with which a site often turns robots away (RFC 9110 §15.5.2, §15.5.4; RFC 6585 §4). */
const ROBOT_BLOCKING_STATUSES = new Set([401, 403, 429]);

/** A failed certificate's failure, named by its code (Node's, OpenSSL's). */
function describeCertificate(cause: CheckCause): string {
  const code = cause.detail;
  if (code === 'CERT_HAS_EXPIRED' && cause.validTo !== undefined) {
    return `Certificate expired on ${dayInWords(cause.validTo)}`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return 'Certificate is for another name';
  }
  if (code === 'CERT_NOT_YET_VALID') return 'Certificate is not valid yet';
  if (code !== undefined && UNTRUSTED_CODES.has(code)) {
    return 'Certificate is not from a trusted authority';
  }
  return `Certificate is not valid (${code ?? 'unknown'})`;
}

/** A timeout, by the phase that ran out (connect, headers, total). */
function describeTimeout(cause: CheckCause): string {
  const within =
    cause.timeoutMs === undefined ? '' : ` within ${seconds(cause.timeoutMs)}`;
  if (cause.detail === 'connect')
    return `Timed out: could not connect${within}`;
  if (cause.detail === 'headers') return `Timed out: no answer${within}`;
  return cause.timeoutMs === undefined
    ? 'Timed out'
    : `Timed out: the check took longer than ${seconds(cause.timeoutMs)}`;
}

/** A cause the checker made (not one kept in words from before codes). */
type CheckCause = Exclude<DownCause, { code: 'worded' }>;

/**
 * Why a check failed, in plain words, for the page and the alert mail.
 *
 * @param cause the failure as the machine keeps it
 * @param userAgent the monitor's User-Agent ({@link monitorUserAgent}),
 *   named in the advice for a 401, 403 or 429
 * @returns one or two sentences, e.g. "No such name: the address
 *   example.invalid does not exist in DNS", "Not a public address: we can
 *   only check sites reachable from the public internet", "Refused or
 *   unreachable (ECONNREFUSED)", "Timed out: no answer within 10 s",
 *   "Certificate expired on 3 March 2026", "Certificate is for another
 *   name", "Certificate is not from a trusted authority", "Too many
 *   redirects (more than 5)", "HTTP 500 Internal Server Error"; for 401,
 *   403 and 429, a second sentence: the site may be blocking robots, and
 *   to allow the user agent. A cause kept in words is its words; one
 *   whose code this version does not know, "The check failed (code)".
 */
export function describeCause(cause: DownCause, userAgent: string): string {
  switch (cause.code) {
    case 'worded':
      return cause.words;
    case 'no_such_name':
      return `No such name: the address ${cause.host ?? ''} does not exist in DNS`;
    case 'not_public':
      return 'Not a public address: we can only check sites reachable from the public internet';
    case 'unreachable':
      return `Refused or unreachable (${cause.detail ?? 'unknown'})`;
    case 'timeout':
      return describeTimeout(cause);
    case 'certificate':
      return describeCertificate(cause);
    case 'redirects':
      return `Too many redirects (more than ${cause.redirects ?? cause.detail ?? ''})`;
    case 'status': {
      const status = cause.status ?? 0;
      const words = `HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd();
      return ROBOT_BLOCKING_STATUSES.has(status)
        ? `${words}. The site may be blocking robots: allow the user agent "${userAgent}" in its firewall or bot protection.`
        : words;
    }
    default: {
      // A code this version does not know (one a newer instance wrote,
      // during a rolling deploy) still reads as a failure.
      const unknown: { code?: unknown } = cause;
      return `The check failed (${String(unknown.code)})`;
    }
  }
}

/**
 * A check's result in plain words: "Up: 200 in 123 ms", or, when down,
 * {@link describeCause} of it.
 *
 * @param result a CheckResult, as the check made it or as `last_check` keeps it
 * @param userAgent as for {@link describeCause}
 */
export function describeResult(result: CheckResult, userAgent: string): string {
  if (result.outcome === 'up') {
    return `Up: ${result.status ?? ''} in ${result.timings.totalMs} ms`;
  }
  return describeCause(causeOf(result), userAgent);
}
