/**
 * One check of one site, as the uptime monitor makes it: a GET of the
 * customer's URL that follows redirects by hand, and the verdict (up or
 * down, and why) with its timings and the site's certificate.
 *
 * The URL is the customer's, so the check is built against server-side
 * request forgery (OWASP SSRF Prevention Cheat Sheet, "any external
 * host"): each hop's name is resolved once, every address it resolves to
 * must pass the address rule (addressRule.ts), and the connection goes to
 * exactly the address that was checked (pinned: undici's own resolution is
 * never used), so that neither a private name nor DNS rebinding reaches
 * the inside of the network. It sends nothing that identifies anyone but
 * the monitor itself, and it keeps nothing of the site's body.
 *
 * This file is the hop-and-redirect loop; the connection and the deadline
 * are ./transport.ts's. The result is data (a reason code, a detail):
 * ../words.ts puts it into words where a page or a mail shows it.
 */
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import type { DownCause, DownReason } from '../../../machines/monitorMachine';
import type { AddressRule } from './addressRule';
import { cleanRemoteText } from './remoteText';
import {
  beforeDeadline,
  CheckStopped,
  errorCode,
  firstValue,
  HOP_ENDED,
  msSince,
  pinnedConnector,
  startDeadline,
  type CertificateInfo,
  type Deadline,
  type Failure,
  type HopRecord,
} from './transport';

export type { CertificateInfo };

/**
 * Resolves a host name to every address it has (A and AAAA), in the order
 * a connection should try them.
 */
export type Resolver = (
  hostname: string,
) => Promise<readonly { address: string; family: 4 | 6 }[]>;

export interface CheckSettings {
  /** `${PRODUCT_NAME}-Monitor/1 (+${PUBLIC_URL})` — built by the caller */
  userAgent: string;
  resolve: Resolver;
  isAllowed: AddressRule;
  /**
   * Called with the address and port right before every TCP connection;
   * tests pass a tripwire that throws outside loopback. A throw refuses
   * that connection: the check is down, `not_public`.
   */
  beforeConnect?: (address: string, port: number) => void;
  /**
   * Extra trusted CA certificates (PEM), for tests' own CA; default: Node's
   * bundled roots only (`tls.rootCertificates`: neither the system's store
   * nor NODE_EXTRA_CA_CERTS, so that every instance judges alike).
   */
  ca?: string | readonly string[];
  /** defaults { connectMs: 5_000, headersMs: 10_000, totalMs: 15_000 } */
  timeouts?: Partial<{ connectMs: number; headersMs: number; totalMs: number }>;
  /** default 5 */
  maxRedirects?: number;
  /** default 65_536 */
  maxBodyBytes?: number;
  /** the clock for checkedAt and a certificate's days left; default () => new Date() */
  now?: () => Date;
  /**
   * Ends the check early from outside (e.g. at shutdown): its connection is
   * closed at once, and the result is down, `unreachable`, detail
   * `ABORT_ERR`.
   */
  signal?: AbortSignal;
}

export type { DownReason };

export interface CheckResult {
  outcome: 'up' | 'down';
  /** when down */
  reason?: DownReason;
  /**
   * machine-readable detail of the reason: the error code (ECONNREFUSED,
   * ENOTFOUND, the certificate code), the refused address (or, for a URL
   * that is not http: or https:, its scheme, e.g. `ftp:`), the phase that
   * timed out ('connect' | 'headers' | 'total')
   */
  detail?: string;
  /** the final HTTP status code, when one was received */
  status?: number;
  /** the address the last connection reached (or was refused) */
  address?: string;
  /** the host name (or IP literal) of the last hop: the one the words name */
  host?: string;
  /** when reason is 'timeout': the limit that ran out, in ms */
  timeoutMs?: number;
  /**
   * whole ms; dns/connect/tls/firstByte of the last hop (firstByte from the
   * start of the hop, its resolution included), total of the whole chain
   */
  timings: {
    dnsMs?: number;
    connectMs?: number;
    tlsMs?: number;
    firstByteMs?: number;
    totalMs: number;
  };
  /**
   * https only: the certificate of the host the visitor typed (the first
   * https hop whose host is the URL's host); when a certificate fails, the
   * one that failed
   */
  certificate?: CertificateInfo;
  /** redirects followed */
  redirects: number;
  /** ISO 8601, from settings.now() at the start */
  checkedAt: string;
}

const DEFAULT_TIMEOUTS = {
  connectMs: 5_000,
  headersMs: 10_000,
  totalMs: 15_000,
};

/** The statuses that redirect with a Location (RFC 9110 §15.4). */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What a resolver says of a name with no address (getaddrinfo's EAI_NONAME, EAI_NODATA). */
const NO_SUCH_NAME_CODES = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME']);

/** The final response of a hop, or a redirect to follow. */
type HopAnswer =
  | { kind: 'final'; status: number }
  | { kind: 'redirect'; status: number; location: URL };

interface ChainContext {
  settings: CheckSettings;
  limits: typeof DEFAULT_TIMEOUTS;
  maxBodyBytes: number;
  deadline: Deadline;
  checkedAt: Date;
}

/**
 * The addresses a connection to `host` may use: an IP literal as it
 * stands, a name resolved once with `settings.resolve`; every address is
 * judged by `settings.isAllowed` before any connection is made, and one
 * refused address refuses the whole name. Sets `record.address` (the
 * refused one) and `record.dnsMs` (a name's resolution, whole ms).
 *
 * @param host a bare host (see {@link bareHost}): an IP address or a name
 * @returns the allowed addresses, in the resolver's order (never empty)
 * @throws CheckStopped: `not_public` with the refused address,
 *   `no_such_name` (ENOTFOUND, ENODATA, ENONAME, or no address),
 *   `unreachable` with the resolver's error code, or the deadline's
 *   failure; nothing else
 * @see OWASP SSRF Prevention Cheat Sheet, "any external host"
 */
export async function allowedAddresses(
  host: string,
  settings: Pick<CheckSettings, 'resolve' | 'isAllowed'>,
  deadline: Deadline,
  record: HopRecord,
): Promise<string[]> {
  if (isIP(host) !== 0) {
    // An IP literal (WHATWG URL parsing has already turned 2130706433 and
    // 0x7f.1 into 127.0.0.1) is judged as it stands: nothing to resolve.
    record.address = host;
    if (!settings.isAllowed(host)) {
      throw new CheckStopped({ reason: 'not_public', detail: host });
    }
    return [host];
  }
  const dnsStarted = performance.now();
  let answers: readonly { address: string }[];
  try {
    answers = await beforeDeadline(
      Promise.resolve().then(() => settings.resolve(host)),
      deadline,
    );
  } catch (error) {
    if (error instanceof CheckStopped) throw error;
    const code = errorCode(error);
    throw new CheckStopped({
      reason: NO_SUCH_NAME_CODES.has(code) ? 'no_such_name' : 'unreachable',
      detail: code,
    });
  }
  record.dnsMs = msSince(dnsStarted);
  if (answers.length === 0) {
    throw new CheckStopped({ reason: 'no_such_name', detail: 'ENODATA' });
  }
  // One refused answer refuses the name: connecting to "the other one"
  // would let a name that also points inside the network through.
  const refused = answers.find(({ address }) => !settings.isAllowed(address));
  if (refused) {
    record.address = refused.address;
    throw new CheckStopped({ reason: 'not_public', detail: refused.address });
  }
  return answers.map(({ address }) => address);
}

/**
 * One hop: resolve once, check every address, connect pinned, GET, read
 * the headers; for a final response, read at most `maxBodyBytes` of the
 * body (never kept) before the connection is destroyed.
 *
 * @throws CheckStopped with the failure; nothing else
 */
async function runHop(
  target: URL,
  chain: ChainContext,
  record: HopRecord,
): Promise<HopAnswer> {
  const { settings, limits, deadline } = chain;
  const hopStarted = performance.now();
  const secure = target.protocol === 'https:';
  const port = Number(target.port) || (secure ? 443 : 80);
  const { host } = record;
  const addresses = await allowedAddresses(host, settings, deadline, record);

  // The headers limit applies when it ends before the whole check does;
  // otherwise the total deadline alone bounds the wait (0: undici's off).
  const headersLimited = limits.headersMs < deadline.remaining();
  const client = new Client(target.origin, {
    connect: pinnedConnector({
      addresses,
      port,
      secure,
      host,
      beforeConnect: settings.beforeConnect,
      ca: settings.ca,
      connectLimitMs: limits.connectMs,
      deadline,
      checkedAt: chain.checkedAt,
      record,
    }),
    headersTimeout: headersLimited ? limits.headersMs : 0,
    bodyTimeout: 0,
    pipelining: 1,
  });
  try {
    const response = await beforeDeadline(
      client.request({
        path: `${target.pathname}${target.search}`,
        method: 'GET',
        headers: {
          'user-agent': settings.userAgent,
          'accept-encoding': 'identity',
        },
        signal: deadline.signal,
      }),
      deadline,
    );
    record.firstByteMs = msSince(hopStarted);
    // The body is dropped unread or part-read; how it then ends (aborted,
    // reset) is of no interest, and must not surface as an uncaught error.
    response.body.on('error', () => undefined);
    const status = response.statusCode;
    const location = firstValue(response.headers.location);
    if (REDIRECT_STATUSES.has(status) && location !== undefined) {
      response.body.destroy();
      let next: URL | undefined;
      try {
        next = new URL(location, target);
      } catch {
        // A Location that is no URL cannot be followed: this response is
        // the final one (RFC 9110 §15.4: the client "MAY" redirect).
      }
      if (next) return { kind: 'redirect', status, location: next };
      return { kind: 'final', status };
    }
    await readSome(response.body, chain.maxBodyBytes);
    return { kind: 'final', status };
  } catch (error) {
    if (record.failure) throw new CheckStopped(record.failure);
    if (error instanceof CheckStopped) throw error;
    if (deadline.signal.aborted) throw deadline.stopped();
    const code = errorCode(error);
    if (code === 'UND_ERR_HEADERS_TIMEOUT') {
      throw new CheckStopped({
        reason: 'timeout',
        detail: 'headers',
        timeoutMs: limits.headersMs,
      });
    }
    throw new CheckStopped({ reason: 'unreachable', detail: code });
  } finally {
    await client.destroy(HOP_ENDED).catch(() => undefined);
  }
}

/**
 * Reads and drops up to `maxBytes` of a body: it ends at the cap, at the
 * body's end, at a body error, or when the total deadline aborts the
 * request. The verdict is already made from the headers; this only lets a
 * small page finish before the connection is destroyed.
 */
async function readSome(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.byteLength;
      if (read >= maxBytes) break;
    }
  } catch {
    // A body that fails after the headers changes nothing (see above).
  }
}

/**
 * The URL a hop fetches: http: or https: only, never with credentials, and
 * never a single-label name (`http://intranet/`, `localhost.`), which no
 * public site has and a resolver may complete with the host's own search
 * domains.
 *
 * @returns the URL to fetch (without credentials or fragment), or the
 *   {@link Failure}: `not_public`, with the scheme or `single-label`
 */
export function hopTarget(url: URL): URL | Failure {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { reason: 'not_public', detail: url.protocol };
  }
  const host = bareHost(url);
  if (isIP(host) === 0 && !host.replace(/\.$/, '').includes('.')) {
    return { reason: 'not_public', detail: 'single-label' };
  }
  const target = new URL(url.href);
  target.username = '';
  target.password = '';
  target.hash = '';
  return target;
}

/** `[::1]` → `::1`: the host as an address or a name. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Checks one site once, as an anonymous visitor would: no cookie, no
 * Authorization, the URL's credentials dropped (a site behind HTTP
 * authentication reads as its 401), each redirect followed by hand and
 * judged anew, against the SSRF rules of the module's comment.
 *
 * @param url the URL to check, as the customer gave it
 * @param settings see {@link CheckSettings}
 * @returns the {@link CheckResult}: up for a final 2xx once its headers
 *   arrive; else down with its reason (`status`, `not_public` for a refused
 *   address, scheme or unparsable URL, `redirects` past `maxRedirects`,
 *   `timeout`, `unreachable`, …)
 * @throws nothing: every failure is a down result
 * @see OWASP SSRF Prevention Cheat Sheet, "any external host"
 */
export async function checkSite(
  url: string,
  settings: CheckSettings,
): Promise<CheckResult> {
  const started = performance.now();
  const checkedAt = (settings.now ?? (() => new Date()))();
  const limits = { ...DEFAULT_TIMEOUTS, ...settings.timeouts };
  const maxRedirects = settings.maxRedirects ?? 5;
  const deadline = startDeadline(started, limits.totalMs, settings.signal);
  const chain: ChainContext = {
    settings,
    limits,
    maxBodyBytes: settings.maxBodyBytes ?? 65_536,
    deadline,
    checkedAt,
  };
  let redirects = 0;
  let certificate: CertificateInfo | undefined;
  let record: HopRecord | undefined;
  const result = (
    outcome: Omit<CheckResult, 'timings' | 'redirects' | 'checkedAt'>,
  ): CheckResult => ({
    ...outcome,
    ...(record?.address === undefined ? {} : { address: record.address }),
    ...(record === undefined ? {} : { host: cleanRemoteText(record.host) }),
    ...(certificate === undefined ? {} : { certificate }),
    timings: {
      ...(record?.dnsMs === undefined ? {} : { dnsMs: record.dnsMs }),
      ...(record?.connectMs === undefined
        ? {}
        : { connectMs: record.connectMs }),
      ...(record?.tlsMs === undefined ? {} : { tlsMs: record.tlsMs }),
      ...(record?.firstByteMs === undefined
        ? {}
        : { firstByteMs: record.firstByteMs }),
      totalMs: msSince(started),
    },
    redirects,
    checkedAt: checkedAt.toISOString(),
  });
  const down = (failure: Failure): CheckResult =>
    result({
      outcome: 'down',
      reason: failure.reason,
      ...(failure.detail === undefined ? {} : { detail: failure.detail }),
      ...(failure.status === undefined ? {} : { status: failure.status }),
      ...(failure.timeoutMs === undefined
        ? {}
        : { timeoutMs: failure.timeoutMs }),
    });

  try {
    let typed: URL;
    try {
      typed = new URL(url);
    } catch {
      return down({ reason: 'not_public', detail: 'url' });
    }
    let next = hopTarget(typed);
    for (;;) {
      if (!(next instanceof URL)) return down(next);
      record = { host: bareHost(next) };
      let answer: HopAnswer;
      try {
        answer = await runHop(next, chain, record);
      } catch (error) {
        if (record.failure?.reason === 'certificate') {
          certificate = record.certificate;
        }
        if (error instanceof CheckStopped) return down(error.failure);
        throw error;
      }
      if (
        certificate === undefined &&
        record.certificate !== undefined &&
        record.host === bareHost(typed)
      ) {
        certificate = record.certificate;
      }
      if (answer.kind === 'final') {
        return answer.status >= 200 && answer.status < 300
          ? result({ outcome: 'up', status: answer.status })
          : down({ reason: 'status', status: answer.status });
      }
      if (redirects >= maxRedirects) {
        return down({
          reason: 'redirects',
          detail: String(maxRedirects),
          status: answer.status,
        });
      }
      redirects += 1;
      next = hopTarget(answer.location);
    }
  } catch (error) {
    // Not expected (every known failure is a CheckStopped); still a result.
    return down({ reason: 'unreachable', detail: errorCode(error) });
  }
}

/**
 * A failed check as the machine keeps it: its reason code and what the
 * words about it need (../words.ts), nothing of timings.
 *
 * @param result a {@link CheckResult} whose outcome is `down`
 * @returns the {@link DownCause}
 * @throws RangeError for a result that is up
 */
export function causeOf(result: CheckResult): DownCause {
  if (result.outcome === 'up' || result.reason === undefined) {
    throw new RangeError('causeOf: the check found the site up');
  }
  const code = result.reason;
  const validTo =
    code === 'certificate' ? result.certificate?.validTo : undefined;
  return {
    code,
    // A detail can be the site's (a redirect's scheme): cleaned, capped.
    ...(result.detail === undefined
      ? {}
      : { detail: cleanRemoteText(result.detail) }),
    ...(result.status === undefined ? {} : { status: result.status }),
    ...(result.host === undefined ? {} : { host: result.host }),
    ...(result.timeoutMs === undefined ? {} : { timeoutMs: result.timeoutMs }),
    ...(code === 'redirects' ? { redirects: result.redirects } : {}),
    ...(validTo === undefined ? {} : { validTo }),
  };
}
