/**
 * The transport of one hop of a site check: a TCP connection to exactly
 * the address the address rule judged (pinned: no name is resolved at
 * connect), TLS over it with the certificate verified here, and the
 * check's deadline. It knows no URL and no redirect (./siteCheck.ts) and
 * no words (../words.ts).
 *
 * Why a connector of our own rather than undici's `buildConnector` with a
 * validating `lookup`: the check reports the TCP connect and the TLS
 * handshake as two timings, gives each address its own connect limit
 * before it tries the next, and reports a failed certificate with its
 * issuer and date without sending the request; undici's connector does
 * the connection and the handshake as one step with one timeout.
 */
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
import type { buildConnector } from 'undici';
import type { DownReason } from '../../../machines/monitorMachine';
import { cleanRemoteText } from './remoteText';

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

/**
 * What a hop's client and connection are destroyed with when the hop ends:
 * one error, made once. Node reads the stack of the error a socket is
 * destroyed with; undici's own, a new ClientDestroyedError per hop, cost a
 * fifth of a check's CPU where stacks go through source maps
 * (`--enable-source-maps`, as `npm run serve` runs; `npm run
 * bench:monitor`).
 */
export const HOP_ENDED = new Error('the check of this hop is over');

/** Why a check stopped short of a final response. */
export interface Failure {
  reason: DownReason;
  detail?: string;
  timeoutMs?: number;
  status?: number;
}

/** Ends the check early with a {@link Failure}; caught in {@link checkSite}. */
export class CheckStopped extends Error {
  constructor(readonly failure: Failure) {
    super(failure.reason);
  }
}

/** What one hop measured and met, kept for the result. */
export interface HopRecord {
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
 * when the caller's signal aborts.
 */
export interface Deadline {
  signal: AbortSignal;
  /** ms left, never negative */
  remaining(): number;
  /** Why the signal aborted: the total timeout, or the caller's abort. */
  stopped(): CheckStopped;
}

/**
 * Starts the check's deadline: `AbortSignal.timeout(totalMs)`, joined with
 * the caller's signal by `AbortSignal.any` (both timers are the
 * platform's, and need no clearing).
 *
 * @param started `performance.now()` at the check's start
 * @param totalMs the whole check's limit, ms
 * @param external the caller's signal (e.g. shutdown), if any
 */
export function startDeadline(
  started: number,
  totalMs: number,
  external: AbortSignal | undefined,
): Deadline {
  const timeout = AbortSignal.timeout(totalMs);
  const signal =
    external === undefined ? timeout : AbortSignal.any([external, timeout]);
  return {
    signal,
    remaining: () => Math.max(0, totalMs - (performance.now() - started)),
    stopped: () =>
      new CheckStopped(
        external?.aborted === true && !timeout.aborted
          ? { reason: 'unreachable', detail: 'ABORT_ERR' }
          : { reason: 'timeout', detail: 'total', timeoutMs: totalMs },
      ),
  };
}

/**
 * Settles with `promise`, or rejects with {@link Deadline.stopped} when the
 * deadline passes first (a resolver cannot be cancelled, only abandoned).
 */
export function beforeDeadline<T>(
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

export function errorCode(error: unknown): string {
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
export function msSince(since: number): number {
  return Math.round(performance.now() - since);
}

/**
 * Extra trusted CAs → one secure context each, made once: building one
 * parses Node's ~140 bundled roots.
 */
const secureContexts = new Map<string, SecureContext>();

function secureContextFor(
  ca: string | readonly string[] | undefined,
): SecureContext {
  const extra = ca === undefined ? [] : typeof ca === 'string' ? [ca] : [...ca];
  const key = extra.join('\n');
  let context = secureContexts.get(key);
  if (!context) {
    context = createSecureContext({ ca: [...rootCertificates, ...extra] });
    secureContexts.set(key, context);
  }
  return context;
}

export function firstValue(
  value: string | string[] | undefined,
): string | undefined {
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

export interface ConnectorContext {
  /** Checked addresses, tried in order while TCP connections fail. */
  addresses: readonly string[];
  port: number;
  secure: boolean;
  /** The URL's host: the TLS server name (SNI, for a name) and the name the certificate must carry. */
  host: string;
  /**
   * Called with the address and port right before every TCP connection;
   * a throw refuses that connection (`not_public`).
   */
  beforeConnect: ((address: string, port: number) => void) | undefined;
  /** Extra trusted CA certificates (PEM) besides Node's bundled roots. */
  ca: string | readonly string[] | undefined;
  /** The connect limit: TCP connection and TLS handshake, per address. */
  connectLimitMs: number;
  deadline: Deadline;
  checkedAt: Date;
  record: HopRecord;
}

/**
 * The error {@link pinnedConnector} gives undici for a connection it could
 * not make, with the failure in our terms: a connection kept alive for
 * many posts (./safePost.ts's {@link PostConnections}) has no one request's
 * record to write it to, and undici fails the request with this error as
 * it is.
 */
export class ConnectFailed extends Error {
  constructor(readonly failure: Failure) {
    super(failure.detail ?? failure.reason);
    this.name = 'ConnectFailed';
  }
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
export function pinnedConnector(
  context: ConnectorContext,
): buildConnector.connector {
  const { addresses, port, secure, host, deadline, record } = context;
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
      callback(
        failure
          ? new ConnectFailed(failure)
          : new Error('aborted before connecting'),
        null,
      );
    };
    const onAbort = () => finish(undefined);
    deadline.signal.addEventListener('abort', onAbort, { once: true });

    const attempt = (index: number) => {
      const address = addresses[index] as string;
      record.address = address;
      try {
        context.beforeConnect?.(address, port);
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
          secureContext: secureContextFor(context.ca),
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
