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
 */
import { STATUS_CODES } from 'node:http';
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  connect as connectTls,
  createSecureContext,
  rootCertificates,
  type PeerCertificate,
  type SecureContext,
  type TLSSocket,
} from 'node:tls';
import { Client, type buildConnector } from 'undici';
import type { AddressRule } from './addressRule';
import { cleanRemoteText } from './remoteText';

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

export type DownReason =
  | 'no_such_name'
  | 'not_public'
  | 'unreachable'
  | 'timeout'
  | 'certificate'
  | 'redirects'
  | 'status';

export interface CertificateInfo {
  /**
   * The issuer's organisation (O), or its common name (CN) without one,
   * cleaned (./remoteText.ts): no controls, at most 200 characters.
   */
  issuer: string;
  /** ISO 8601 */
  validTo: string;
  /** whole days from checkedAt to validTo (rounded down), negative when expired */
  daysLeft: number;
  /**
   * when it does not verify: Node's code (CERT_HAS_EXPIRED,
   * ERR_TLS_CERT_ALTNAME_INVALID, DEPTH_ZERO_SELF_SIGNED_CERT,
   * UNABLE_TO_VERIFY_LEAF_SIGNATURE, SELF_SIGNED_CERT_IN_CHAIN, …)
   */
  error?: string;
}

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

/**
 * What a hop's client and connection are destroyed with when the hop ends:
 * one error, made once. Node reads the stack of the error a socket is
 * destroyed with; undici's own, a new ClientDestroyedError per hop, cost a
 * fifth of a check's CPU where stacks go through source maps
 * (`--enable-source-maps`, as `npm run serve` runs; `npm run
 * bench:monitor`).
 */
const HOP_ENDED = new Error('the check of this hop is over');

/** Why a check stopped short of a final response. */
interface Failure {
  reason: DownReason;
  detail?: string;
  timeoutMs?: number;
  status?: number;
}

/** Ends the check early with a {@link Failure}; caught in {@link checkSite}. */
class CheckStopped extends Error {
  constructor(readonly failure: Failure) {
    super(failure.reason);
  }
}

/** What one hop measured and met, kept for the result. */
interface HopRecord {
  host: string;
  address?: string;
  dnsMs?: number;
  connectMs?: number;
  tlsMs?: number;
  firstByteMs?: number;
  certificate?: CertificateInfo;
  /** A failure the connector saw (undici may wrap or replace its error). */
  failure?: Failure;
}

/**
 * The whole chain's one time box (the `totalMs` limit), which also ends
 * when the caller's `settings.signal` aborts.
 */
interface Deadline {
  signal: AbortSignal;
  /** ms left, never negative */
  remaining(): number;
  /** Why the signal aborted: the total timeout, or the caller's abort. */
  stopped(): CheckStopped;
  clear(): void;
}

function startDeadline(
  started: number,
  totalMs: number,
  external: AbortSignal | undefined,
): Deadline {
  const controller = new AbortController();
  let byCaller = false;
  const onExternalAbort = () => {
    byCaller = true;
    controller.abort();
  };
  const timer = setTimeout(() => controller.abort(), totalMs);
  if (external?.aborted) onExternalAbort();
  external?.addEventListener('abort', onExternalAbort, { once: true });
  return {
    signal: controller.signal,
    remaining: () => Math.max(0, totalMs - (performance.now() - started)),
    stopped: () =>
      new CheckStopped(
        byCaller
          ? { reason: 'unreachable', detail: 'ABORT_ERR' }
          : { reason: 'timeout', detail: 'total', timeoutMs: totalMs },
      ),
    clear: () => {
      clearTimeout(timer);
      external?.removeEventListener('abort', onExternalAbort);
    },
  };
}

/**
 * Settles with `promise`, or rejects with {@link Deadline.stopped} when the
 * deadline passes first (a resolver cannot be cancelled, only abandoned).
 */
function beforeDeadline<T>(
  promise: Promise<T>,
  deadline: Deadline,
): Promise<T> {
  promise.catch(() => undefined);
  if (deadline.signal.aborted) return Promise.reject(deadline.stopped());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(deadline.stopped());
    deadline.signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        deadline.signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        deadline.signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, cause } = error as { code?: unknown; cause?: unknown };
    // undici's SocketError ("other side closed") says more in its cause.
    if (code === 'UND_ERR_SOCKET' && cause !== undefined) {
      return errorCode(cause);
    }
    if (typeof code === 'string' && code !== '') return code;
  }
  return 'ERROR';
}

/** Whole ms since `since`. */
function msSince(since: number): number {
  return Math.round(performance.now() - since);
}

/**
 * Extra trusted CAs → one secure context each, made once: building one
 * parses Node's ~140 bundled roots.
 */
const secureContexts = new Map<string, SecureContext>();

function secureContextFor(ca: CheckSettings['ca']): SecureContext {
  const extra = ca === undefined ? [] : typeof ca === 'string' ? [ca] : [...ca];
  const key = extra.join('\n');
  let context = secureContexts.get(key);
  if (!context) {
    context = createSecureContext({ ca: [...rootCertificates, ...extra] });
    secureContexts.set(key, context);
  }
  return context;
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function certificateInfo(
  certificate: PeerCertificate,
  checkedAt: Date,
  error: string | undefined,
): CertificateInfo | undefined {
  const validTo = new Date(certificate.valid_to);
  if (Number.isNaN(validTo.getTime())) return undefined;
  const issuer = certificate.issuer as
    Record<string, string | string[] | undefined> | undefined;
  return {
    // The issuer's name is the site's text: cleaned before it is kept.
    issuer: cleanRemoteText(
      firstValue(issuer?.O) ?? firstValue(issuer?.CN) ?? '',
    ),
    validTo: validTo.toISOString(),
    daysLeft: Math.floor(
      (validTo.getTime() - checkedAt.getTime()) / 86_400_000,
    ),
    ...(error === undefined ? {} : { error }),
  };
}

/**
 * Node gives `authorizationError` as the OpenSSL or Node code (a string),
 * though typed as an Error.
 */
function authorizationCode(socket: TLSSocket): string {
  const error: unknown = socket.authorizationError;
  if (typeof error === 'string') return error;
  const code = errorCode(error);
  return code === 'ERROR' && error instanceof Error ? error.message : code;
}

/** A pinned connection never resolves a name: refuse if asked to. */
function refuseLookup(
  hostname: string,
  _options: unknown,
  callback: (error: Error | null, address: string, family: number) => void,
): void {
  callback(new Error(`refused to resolve ${hostname} at connect`), '', 0);
}

interface ConnectorContext {
  /** Checked addresses, tried in order while TCP connections fail. */
  addresses: readonly string[];
  port: number;
  secure: boolean;
  /** The URL's host: the TLS server name (SNI, for a name) and the name the certificate must carry. */
  host: string;
  settings: CheckSettings;
  /** The connect limit: TCP connection and TLS handshake, per address. */
  connectLimitMs: number;
  deadline: Deadline;
  checkedAt: Date;
  record: HopRecord;
}

/**
 * undici's connector for one hop: a TCP connection to exactly one of the
 * checked addresses (pinned), then, for https, TLS over it with the
 * certificate verified here rather than by `rejectUnauthorized`, so that a
 * bad certificate is reported with its issuer and date and no request is
 * sent. The connect limit covers the TCP connection and the TLS handshake;
 * when it is no shorter than the time left, the total deadline alone
 * applies.
 */
function pinnedConnector(context: ConnectorContext): buildConnector.connector {
  const { addresses, port, secure, host, settings, deadline, record } = context;
  return (_options, callback) => {
    let settled = false;
    let socket: Socket | undefined;
    let timer: NodeJS.Timeout | undefined;
    const finish = (failure: Failure | undefined, connected?: Socket) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      deadline.signal.removeEventListener('abort', onAbort);
      if (connected) {
        callback(null, connected);
        return;
      }
      socket?.destroy();
      if (failure) record.failure = failure;
      callback(new Error(failure?.detail ?? 'aborted'), null);
    };
    const onAbort = () => finish(undefined);
    deadline.signal.addEventListener('abort', onAbort, { once: true });

    const attempt = (index: number) => {
      const address = addresses[index] as string;
      record.address = address;
      try {
        settings.beforeConnect?.(address, port);
      } catch {
        finish({ reason: 'not_public', detail: address });
        return;
      }
      const next = (failure: Failure) => {
        socket?.destroy();
        if (index + 1 < addresses.length) attempt(index + 1);
        else finish(failure);
      };
      const limit = context.connectLimitMs;
      clearTimeout(timer);
      if (limit < deadline.remaining()) {
        timer = setTimeout(() => {
          const failure = {
            reason: 'timeout' as const,
            detail: 'connect',
            timeoutMs: limit,
          };
          // Only a TCP connection that never came moves on to the next address.
          if (socket?.connecting) next(failure);
          else finish(failure);
        }, limit);
      }
      const connectStarted = performance.now();
      const tcp = connectTcp({ host: address, port, lookup: refuseLookup });
      socket = tcp;
      const onTcpError = (error: Error) =>
        next({ reason: 'unreachable', detail: errorCode(error) });
      tcp.once('error', onTcpError);
      tcp.once('connect', () => {
        record.connectMs = msSince(connectStarted);
        tcp.off('error', onTcpError);
        if (!secure) {
          finish(undefined, tcp);
          return;
        }
        // The TLS socket reports the connection's errors from here on.
        tcp.on('error', () => undefined);
        const tlsStarted = performance.now();
        const tlsSocket = connectTls({
          socket: tcp,
          host,
          ...(isIP(host) ? {} : { servername: host }),
          secureContext: secureContextFor(settings.ca),
          rejectUnauthorized: false,
          ALPNProtocols: ['http/1.1'],
        });
        socket = tlsSocket;
        const onTlsError = (error: Error) =>
          finish({ reason: 'unreachable', detail: errorCode(error) });
        tlsSocket.once('error', onTlsError);
        tlsSocket.once('secureConnect', () => {
          record.tlsMs = msSince(tlsStarted);
          tlsSocket.off('error', onTlsError);
          const code = tlsSocket.authorized
            ? undefined
            : authorizationCode(tlsSocket);
          const info = certificateInfo(
            tlsSocket.getPeerCertificate(),
            context.checkedAt,
            code,
          );
          if (info) record.certificate = info;
          if (code === undefined) finish(undefined, tlsSocket);
          else finish({ reason: 'certificate', detail: code });
        });
      });
    };
    attempt(0);
  };
}

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
  let addresses: string[];
  if (isIP(host) !== 0) {
    // An IP literal (WHATWG URL parsing has already turned 2130706433 and
    // 0x7f.1 into 127.0.0.1) is judged as it stands: nothing to resolve.
    record.address = host;
    if (!settings.isAllowed(host)) {
      throw new CheckStopped({ reason: 'not_public', detail: host });
    }
    addresses = [host];
  } else {
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
    addresses = answers.map(({ address }) => address);
  }

  // The headers limit applies when it ends before the whole check does;
  // otherwise the total deadline alone bounds the wait (0: undici's off).
  const headersLimited = limits.headersMs < deadline.remaining();
  const client = new Client(target.origin, {
    connect: pinnedConnector({
      addresses,
      port,
      secure,
      host,
      settings,
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
 */
function hopTarget(url: URL): URL | Failure {
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
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Checks one site once. Never throws: every failure is a 'down' result
 * with its reason.
 *
 * The request is a GET with `User-Agent: <userAgent>` and
 * `Accept-Encoding: identity` and nothing that identifies anyone: no
 * cookie, no Authorization. Credentials in the URL (`https://user:pass@…`,
 * or in a Location) are dropped, never sent: the monitor checks the site
 * as an anonymous visitor sees it, so a site behind HTTP authentication is
 * reported as its 401.
 *
 * Each hop's host is resolved once with `settings.resolve`; if any address
 * is refused by `settings.isAllowed` (or the host is a refused IP literal),
 * the check is down, `not_public`, and no connection is made. The
 * connection goes to the first checked address (the next ones only when a
 * TCP connection to it fails), and no name is resolved again on the way.
 * Redirects (301, 302, 303, 307, 308 with a Location, RFC 9110 §15.4) are
 * followed by hand, at most `maxRedirects`, each hop checked anew, to
 * http: and https: only (another scheme is `not_public`, its scheme in
 * `detail`); one more is `redirects`. A URL that does not parse is
 * `not_public` with detail `url`.
 *
 * A final 2xx is up once its headers arrive: the body is then read, up to
 * `maxBodyBytes` and within what is left of the total deadline, dropped,
 * and the connection destroyed, whatever the body does (a body that drips
 * forever ends with the deadline, still up). Any other final status is
 * down, `status`.
 *
 * @param url the URL to check, as the customer gave it
 * @param settings see {@link CheckSettings}
 * @returns the {@link CheckResult}
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
  } finally {
    deadline.clear();
  }
}

/** "0.3 s", "10 s" */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** "3 March 2026", in UTC: the day the certificate's time falls on there. */
function longDate(iso: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(new Date(iso));
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

function describeCertificate(result: CheckResult): string {
  const code = result.certificate?.error ?? result.detail;
  if (code === 'CERT_HAS_EXPIRED' && result.certificate) {
    return `Certificate expired on ${longDate(result.certificate.validTo)}`;
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

function describeTimeout(result: CheckResult): string {
  const within =
    result.timeoutMs === undefined
      ? ''
      : ` within ${seconds(result.timeoutMs)}`;
  if (result.detail === 'connect')
    return `Timed out: could not connect${within}`;
  if (result.detail === 'headers') return `Timed out: no answer${within}`;
  return result.timeoutMs === undefined
    ? 'Timed out'
    : `Timed out: the check took longer than ${seconds(result.timeoutMs)}`;
}

/**
 * The result in plain words for the page and the alert mail.
 *
 * @param result a {@link CheckResult}
 * @param userAgent the monitor's User-Agent, named in the advice for a
 *   401, 403 or 429
 * @returns one or two sentences, e.g. "Up: 200 in 123 ms", "No such name:
 *   the address example.invalid does not exist in DNS", "Not a public
 *   address: we can only check sites reachable from the public internet",
 *   "Refused or unreachable (ECONNREFUSED)", "Timed out: no answer within
 *   10 s", "Certificate expired on 3 March 2026", "Certificate is for
 *   another name", "Certificate is not from a trusted authority", "Too many
 *   redirects (more than 5)", "HTTP 500 Internal Server Error"; for 401,
 *   403 and 429, a second sentence: the site may be blocking robots, and
 *   to allow the user agent
 */
export function describeResult(result: CheckResult, userAgent: string): string {
  if (result.outcome === 'up') {
    return `Up: ${result.status ?? ''} in ${result.timings.totalMs} ms`;
  }
  switch (result.reason) {
    case 'no_such_name':
      return `No such name: the address ${result.host ?? ''} does not exist in DNS`;
    case 'not_public':
      return 'Not a public address: we can only check sites reachable from the public internet';
    case 'unreachable':
      return `Refused or unreachable (${result.detail ?? 'unknown'})`;
    case 'timeout':
      return describeTimeout(result);
    case 'certificate':
      return describeCertificate(result);
    case 'redirects':
      return `Too many redirects (more than ${result.redirects})`;
    case 'status':
    case undefined: {
      const status = result.status ?? 0;
      const words = `HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd();
      return ROBOT_BLOCKING_STATUSES.has(status)
        ? `${words}. The site may be blocking robots: allow the user agent "${userAgent}" in its firewall or bot protection.`
        : words;
    }
  }
}
