/**
 * One POST to a URL someone else chose (a customer's webhook receiver), held
 * to the uptime check's rules against server-side request forgery (issue
 * 60, its SSRF section; OWASP SSRF Prevention
 * Cheat Sheet, "any external host"): the host is resolved once, every
 * address it has must pass the address rule before any connection, the
 * connection goes to exactly a judged address (./transport.ts's
 * `pinnedConnector`), within the same deadline, and no redirect is
 * followed. What the receiver answers is read to a small cap and cleaned
 * (./remoteText.ts) before anyone stores or shows it.
 *
 * The resolving and judging are ./siteCheck.ts's (`allowedAddresses`,
 * `hopTarget`), the connection and the deadline ./transport.ts's: this
 * file is the request and the reading of its answer.
 */
import { performance } from 'node:perf_hooks';
import { Client, Pool, type Dispatcher } from 'undici';
import type { AddressRule } from './addressRule';
import { cleanRemoteText } from './remoteText';
import {
  allowedAddresses,
  bareHost,
  hopTarget,
  type Resolver,
} from './siteCheck';
import {
  beforeDeadline,
  CheckStopped,
  ConnectFailed,
  errorCode,
  firstValue,
  HOP_ENDED,
  msSince,
  pinnedConnector,
  startDeadline,
  type Deadline,
  type Failure,
  type HopRecord,
} from './transport';

/** What {@link postSafely} needs besides the URL and the request. */
export interface PostSettings {
  /** Resolves the URL's host to every address it has (as `CheckSettings.resolve`). */
  resolve: Resolver;
  /** Judges every address before any connection (./addressRule.ts). */
  isAllowed: AddressRule;
  /**
   * Called with the address and port right before every TCP connection;
   * tests pass a tripwire that throws outside loopback. A throw refuses
   * that connection: `not_public`, the address as detail.
   */
  beforeConnect?: (address: string, port: number) => void;
  /** Extra trusted CA certificates (PEM) besides Node's bundled roots. */
  ca?: string | readonly string[];
  /** The `User-Agent` header sent, whatever the request's headers say. */
  userAgent: string;
  /**
   * ms: `connectMs` per address (TCP connection and TLS handshake),
   * `totalMs` for the whole post, resolution and answer included;
   * defaults { connectMs: 5_000, totalMs: 10_000 }
   */
  timeouts?: Partial<{ connectMs: number; totalMs: number }>;
  /** The most bytes of the answer's body read; default 4096 */
  maxAnswerBytes?: number;
  /**
   * Ends the post early from outside (e.g. at shutdown): before the
   * answer's headers, it is `failed`, `unreachable`, detail `ABORT_ERR`.
   */
  signal?: AbortSignal;
  /**
   * Connections kept alive between posts ({@link postConnections}); without
   * it, each post opens its own connection and closes it.
   */
  connections?: PostConnections;
}

/**
 * Connections kept open after a post, for the next posts to the same
 * receiver: an incident's alerts to one host (a Slack workspace's, a
 * ticketing system's) then cost one TCP connection and TLS handshake per
 * connection rather than per post (ADR-0132). Made by
 * {@link postConnections}; one per set of {@link PostSettings} (its
 * `beforeConnect`, `ca` and connect limit are those of the posts that
 * made its connections).
 */
export interface PostConnections {
  /**
   * The pool for one receiver as this post judged it; made on first use.
   * ({@link postSafely} asks; nothing else needs it.)
   */
  pool(key: string, make: () => Pool): Pool | undefined;
  /** Closes every kept connection (in-flight posts end first); later posts open their own. */
  close(): Promise<void>;
}

/**
 * How long a kept connection may wait idle for the next post (ms): undici's
 * default when the receiver says nothing, and the most a receiver's
 * `Keep-Alive: timeout` may ask (undici would grant up to 10 minutes).
 * Posts in flight are capped (the outbox's 1,000); idle connections are
 * not, so they must not outlive the burst that opened them by long: an
 * incident's posts to one receiver come far closer together than this.
 */
const KEPT_IDLE_MAX_MS = 4_000;

/**
 * Kept-alive connections for {@link postSafely} (ADR-0132). A connection is
 * kept only for the receiver it was made for, keyed by the URL's origin,
 * its host and the whole set of addresses the post judged allowed: each
 * post still resolves the host and judges every address first, and a name
 * that now resolves elsewhere (DNS rebinding) finds no connection to reuse.
 * A connection whose answer was cut at the cap, or that failed, is closed,
 * never reused. At most `maxReceivers` receivers keep connections; the one
 * unused longest closes its own when another comes.
 *
 * @param options `maxReceivers` (default 256)
 * @returns the connections, empty until a post opens one
 */
export function postConnections(
  options: { maxReceivers?: number } = {},
): PostConnections {
  const maxReceivers = options.maxReceivers ?? 256;
  const pools = new Map<string, Pool>();
  let closed = false;
  return {
    pool(key, make) {
      if (closed) return undefined;
      let pool = pools.get(key);
      if (pool) {
        // Map order is use order: the oldest is evicted first.
        pools.delete(key);
      } else {
        pool = make();
        for (const [oldestKey, oldest] of pools) {
          if (pools.size < maxReceivers) break;
          pools.delete(oldestKey);
          void oldest.close().catch(() => undefined);
        }
      }
      pools.set(key, pool);
      return pool;
    },
    async close() {
      closed = true;
      const all = [...pools.values()];
      pools.clear();
      await Promise.all(all.map((pool) => pool.close().catch(() => undefined)));
    },
  };
}

/** Why a post got no answer to report (see {@link postSafely}). */
export type PostFailureReason =
  | 'not_public'
  | 'no_such_name'
  | 'unreachable'
  | 'timeout'
  | 'certificate'
  | 'redirect'
  | 'invalid_url';

/**
 * What came of one post; `ms` is the whole time taken, in whole ms.
 *
 * - `answered`: a final status other than 3xx; `retryAfterMs` from its
 *   `Retry-After` header (RFC 9110 §10.2.3), in ms from when the answer
 *   came, 0 for a date in the past; `body` the first bytes of its body
 *   (UTF-8), cleaned.
 * - `failed`: `detail` is machine-readable: the refused address
 *   (`not_public`), the error code (`unreachable`, `no_such_name`,
 *   `certificate`), the limit that ran out (`timeout`: `connect` or
 *   `total`), the status (`redirect`), the scheme or `credentials` or `url`
 *   (`invalid_url`), or `single-label` (`not_public`, a host with no dot).
 */
export type PostAnswer =
  | {
      kind: 'answered';
      status: number;
      retryAfterMs?: number;
      body: string;
      ms: number;
    }
  | {
      kind: 'failed';
      reason: PostFailureReason;
      detail?: string;
      ms: number;
    };

/** What a post may send: its headers and its body. */
export interface PostRequest {
  headers: Record<string, string>;
  body: string;
}

const DEFAULT_TIMEOUTS = { connectMs: 5_000, totalMs: 10_000 };

const DEFAULT_MAX_ANSWER_BYTES = 4096;

/** The reasons of transport.ts's failures that a post reports as they are. */
const POST_REASONS: ReadonlySet<string> = new Set<PostFailureReason>([
  'not_public',
  'no_such_name',
  'unreachable',
  'timeout',
  'certificate',
]);

function isPostReason(reason: string): reason is PostFailureReason {
  return POST_REASONS.has(reason);
}

/**
 * Posts `request` to `url` once, under the SSRF rules of the uptime check
 * (issue 60; OWASP SSRF Prevention Cheat Sheet, "any external host").
 *
 * - Only an `http:` or `https:` URL without credentials is posted to;
 *   anything else, or a URL that does not parse, is `invalid_url`. A host
 *   with no dot (`http://intranet/`) is `not_public`, as in a site check.
 * - The host is resolved once with `settings.resolve` (an IP literal is
 *   taken as it is), and every address is judged by `settings.isAllowed`
 *   before any connection: one refused address refuses the name,
 *   `not_public` with that address as detail, and nothing is connected.
 * - The connection goes to a judged address (the next one only when a TCP
 *   connection fails), TLS verified against Node's roots and
 *   `settings.ca`; `settings.beforeConnect` is called before each.
 * - The request is a POST of `request.body` with `request.headers`,
 *   `User-Agent: settings.userAgent` in place of any the headers give,
 *   and `Accept-Encoding: identity` unless the headers give one.
 * - No redirect is followed: a 3xx answer is `redirect`, its status as
 *   detail. Any other status is `answered`, with at most
 *   `maxAnswerBytes` of its body (decoded as UTF-8; a character cut at the
 *   cap is dropped) cleaned by `cleanRemoteText`. Once the headers have
 *   come, the answer stands: a body cut short by an error, the deadline or
 *   the signal ends there.
 * - The connection is closed after the post, unless `settings.connections`
 *   keeps it (an answer read whole, before the deadline) for the next post
 *   to the same origin, host and judged addresses.
 * - Time: `connectMs` per address (default 5 s), `totalMs` in all
 *   (default 10 s): `timeout`, with `connect` or `total` as detail. A
 *   connection opened for an earlier post is a connect already made.
 *
 * @param url the receiver's URL, as its owner gave it
 * @param request the headers and body to send (the body as UTF-8)
 * @param settings see {@link PostSettings}
 * @returns the {@link PostAnswer}; never rejects for a network failure, a
 *   bad URL or an aborted `settings.signal` (`unreachable`, `ABORT_ERR`)
 * @throws only for a programming error: a header undici refuses
 *   (undici's InvalidArgumentError, `UND_ERR_INVALID_ARG`), or an
 *   `isAllowed` that throws
 */
export async function postSafely(
  url: string,
  request: PostRequest,
  settings: PostSettings,
): Promise<PostAnswer> {
  const started = performance.now();
  const failed = (reason: PostFailureReason, detail?: string): PostAnswer => ({
    kind: 'failed',
    reason,
    ...(detail === undefined ? {} : { detail }),
    ms: msSince(started),
  });
  const stopped = ({ reason, detail }: Failure): PostAnswer =>
    failed(isPostReason(reason) ? reason : 'unreachable', detail);

  let typed: URL;
  try {
    typed = new URL(url);
  } catch {
    return failed('invalid_url', 'url');
  }
  if (typed.protocol !== 'http:' && typed.protocol !== 'https:') {
    return failed('invalid_url', typed.protocol);
  }
  if (typed.username !== '' || typed.password !== '') {
    return failed('invalid_url', 'credentials');
  }
  const target = hopTarget(typed);
  if (!(target instanceof URL)) return stopped(target);

  const limits = { ...DEFAULT_TIMEOUTS, ...settings.timeouts };
  const deadline = startDeadline(started, limits.totalMs, settings.signal);
  const record: HopRecord = { host: bareHost(target) };
  try {
    if (deadline.signal.aborted) throw deadline.stopped();
    const addresses = await allowedAddresses(
      record.host,
      settings,
      deadline,
      record,
    );
    const answer = await send(target, request, {
      settings,
      addresses,
      connectLimitMs: limits.connectMs,
      deadline,
      record,
    });
    if (answer.status >= 300 && answer.status < 400) {
      return failed('redirect', String(answer.status));
    }
    return {
      kind: 'answered',
      status: answer.status,
      ...(answer.retryAfterMs === undefined
        ? {}
        : { retryAfterMs: answer.retryAfterMs }),
      body: answer.body,
      ms: msSince(started),
    };
  } catch (error) {
    if (error instanceof CheckStopped) return stopped(error.failure);
    throw error;
  }
}

interface SendContext {
  settings: PostSettings;
  addresses: readonly string[];
  connectLimitMs: number;
  deadline: Deadline;
  record: HopRecord;
}

/** The receiver's answer, before it is judged. */
interface RawAnswer {
  status: number;
  retryAfterMs?: number;
  body: string;
}

/**
 * Connects pinned to the judged addresses, POSTs, and reads the answer
 * (the body of a 3xx is not read).
 *
 * @throws CheckStopped with the failure; an undici InvalidArgumentError
 *   (a programming error) as it is
 */
async function send(
  target: URL,
  request: PostRequest,
  context: SendContext,
): Promise<RawAnswer> {
  const { settings, deadline, record } = context;
  const secure = target.protocol === 'https:';
  const connector = (connectDeadline: Deadline, connectRecord: HopRecord) =>
    pinnedConnector({
      addresses: context.addresses,
      port: Number(target.port) || (secure ? 443 : 80),
      secure,
      host: record.host,
      beforeConnect: settings.beforeConnect,
      ca: settings.ca,
      connectLimitMs: context.connectLimitMs,
      deadline: connectDeadline,
      checkedAt: new Date(),
      record: connectRecord,
    });
  // The total deadline alone bounds the wait (0: undici's own are off).
  const waits = { headersTimeout: 0, bodyTimeout: 0, pipelining: 1 };
  const pool = settings.connections?.pool(
    JSON.stringify([
      target.origin,
      record.host,
      [...context.addresses].sort(),
      context.connectLimitMs,
    ]),
    () =>
      new Pool(target.origin, {
        // A connection outlives the post that opened it: the post's
        // deadline bounds its wait for the answer, not the connection.
        connect: connector(UNENDING, { host: record.host }),
        ...waits,
        keepAliveTimeout: KEPT_IDLE_MAX_MS,
        keepAliveMaxTimeout: KEPT_IDLE_MAX_MS,
      }),
  );
  const client: Dispatcher =
    pool ??
    new Client(target.origin, {
      connect: connector(deadline, record),
      ...waits,
    });
  try {
    const response = await beforeDeadline(
      client.request({
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: requestHeaders(request.headers, settings.userAgent),
        body: request.body,
        signal: deadline.signal,
      }),
      deadline,
    );
    const answeredAt = Date.now();
    // The body is dropped unread or part-read; how it then ends (aborted,
    // reset) must not surface as an uncaught error.
    response.body.on('error', () => undefined);
    const status = response.statusCode;
    const retryAfterMs = parseRetryAfter(
      firstValue(response.headers['retry-after']),
      answeredAt,
    );
    let body = '';
    if (status >= 300 && status < 400) {
      response.body.destroy();
    } else {
      const maxBytes = settings.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
      const bytes = await readAtMost(response.body, maxBytes);
      // stream: a multi-byte character cut at the cap is held back, not
      // turned into U+FFFD.
      const text = new TextDecoder().decode(bytes, { stream: true });
      body = cleanRemoteText(text, Math.max(1, maxBytes));
    }
    return {
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      body,
    };
  } catch (error) {
    if (record.failure) throw new CheckStopped(record.failure);
    if (error instanceof ConnectFailed) throw new CheckStopped(error.failure);
    if (error instanceof CheckStopped) throw error;
    if (deadline.signal.aborted) throw deadline.stopped();
    const code = errorCode(error);
    if (code === 'UND_ERR_INVALID_ARG') throw error;
    throw new CheckStopped({ reason: 'unreachable', detail: code });
  } finally {
    if (!pool) await client.destroy(HOP_ENDED).catch(() => undefined);
  }
}

/** A connection's own deadline: none (its posts have theirs). */
const UNENDING: Deadline = {
  signal: new AbortController().signal,
  remaining: () => Infinity,
  stopped: () => new CheckStopped({ reason: 'unreachable' }),
};

/**
 * The request's headers with `User-Agent` (any case) replaced by
 * `userAgent`, and `Accept-Encoding: identity` unless they give one: the
 * body is read as text, never decompressed.
 */
function requestHeaders(
  given: Readonly<Record<string, string>>,
  userAgent: string,
): Record<string, string> {
  const headers: Record<string, string> = {};
  let encoding = false;
  for (const [name, value] of Object.entries(given)) {
    const lower = name.toLowerCase();
    if (lower === 'user-agent') continue;
    if (lower === 'accept-encoding') encoding = true;
    headers[name] = value;
  }
  headers['user-agent'] = userAgent;
  if (!encoding) headers['accept-encoding'] = 'identity';
  return headers;
}

/**
 * Reads at most `maxBytes` of a body; it ends at the cap, at the body's
 * end, at a body error, or when the deadline aborts the request.
 */
async function readAtMost(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let read = 0;
  if (maxBytes <= 0) return new Uint8Array(0);
  try {
    for await (const chunk of body) {
      const kept = chunk.subarray(0, maxBytes - read);
      chunks.push(kept);
      read += kept.byteLength;
      if (read >= maxBytes) break;
    }
  } catch {
    // What came before the error is the answer's body.
  }
  return Buffer.concat(chunks, read);
}

const SHORT_DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = [
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
];
const MONTH = `(?<month>${MONTHS.join('|')})`;
const TIME = '(?<hour>\\d{2}):(?<minute>\\d{2}):(?<second>\\d{2})';

/** The three forms of HTTP-date (RFC 9110 §5.6.7), case-sensitive. */
const HTTP_DATE_FORMATS = [
  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
  new RegExp(
    `^${SHORT_DAY}, (?<day>\\d{2}) ${MONTH} (?<year>\\d{4}) ${TIME} GMT$`,
  ),
  // rfc850-date (obsolete): Sunday, 06-Nov-94 08:49:37 GMT
  new RegExp(
    `^${LONG_DAY}, (?<day>\\d{2})-${MONTH}-(?<year>\\d{2}) ${TIME} GMT$`,
  ),
  // asctime-date (obsolete): Sun Nov  6 08:49:37 1994
  new RegExp(
    `^${SHORT_DAY} ${MONTH} (?<day>[ \\d]\\d) ${TIME} (?<year>\\d{4})$`,
  ),
];

/**
 * An HTTP-date (RFC 9110 §5.6.7) as ms since the epoch: any of its three
 * forms, a two-digit year read as §5.6.7 says (more than 50 years ahead of
 * `nowMs` means the century before).
 *
 * @returns undefined for anything else, or a date that does not exist
 */
function parseHttpDate(text: string, nowMs: number): number | undefined {
  for (const format of HTTP_DATE_FORMATS) {
    const groups = format.exec(text)?.groups;
    if (groups === undefined) continue;
    const { day, month, year, hour, minute, second } = groups;
    if (!day || !month || !year || !hour || !minute || !second) {
      return undefined;
    }
    let fullYear = Number(year);
    if (year.length === 2) {
      const thisYear = new Date(nowMs).getUTCFullYear();
      fullYear += thisYear - (thisYear % 100);
      if (fullYear > thisYear + 50) fullYear -= 100;
    }
    const date = new Date(0);
    date.setUTCFullYear(fullYear, MONTHS.indexOf(month), Number(day.trim()));
    // A day the month does not have (31 Feb) rolls over: refused.
    if (date.getUTCDate() !== Number(day.trim())) return undefined;
    const [h, m, s] = [Number(hour), Number(minute), Number(second)];
    // 60: a leap second (RFC 9110 §5.6.7).
    if (h > 23 || m > 59 || s > 60) return undefined;
    date.setUTCHours(h, m, s);
    return date.getTime();
  }
  return undefined;
}

/**
 * A `Retry-After` value (RFC 9110 §10.2.3) as ms from `nowMs`: delay-seconds
 * (`1*DIGIT`) × 1000, or an HTTP-date less `nowMs` (0 when it is past).
 * Nothing is capped here.
 *
 * @returns undefined for no header or a value that is neither
 */
function parseRetryAfter(
  value: string | undefined,
  nowMs: number,
): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const ms = Number(text) * 1000;
    return Number.isFinite(ms) ? ms : undefined;
  }
  const date = parseHttpDate(text, nowMs);
  return date === undefined ? undefined : Math.max(0, date - nowMs);
}
