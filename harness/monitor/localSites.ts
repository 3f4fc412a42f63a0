/**
 * Websites for the monitor's tests, on 127.0.0.1 only: a Node `http` or
 * `https` server with routes that behave as the sites a monitor meets (up,
 * failing, redirecting, silent, dripping, huge), a TCP server that accepts
 * and never speaks, a port that refuses, and the certificates an HTTPS site
 * needs, made at test time by the `openssl` CLI under a throwaway test CA
 * (valid, expired or for another name).
 *
 * Every server listens on 127.0.0.1; tests reach it through a test
 * resolver (./tripwire.ts) that maps names such as `site.test` there.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type {
  IncomingHttpHeaders,
  IncomingMessage,
  ServerResponse,
} from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import {
  createServer as createTcpServer,
  isIP,
  type AddressInfo,
  type Server as TcpServer,
  type Socket,
} from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The only address the tests' servers listen on. */
export const LOOPBACK = '127.0.0.1';

/** Answers one request; `response` must end, or be ended by the server's close. */
export type Route = (
  request: IncomingMessage,
  response: ServerResponse,
) => void;

/** A request as the site received it. */
export interface SeenRequest {
  method: string;
  /** The request target, e.g. `/path?query`. */
  target: string;
  /** Node's parsed headers: names lowercase. */
  headers: IncomingHttpHeaders;
}

/** What became of one response the site started. */
export interface SeenResponse {
  target: string;
  /**
   * Whether the whole response was handed to the connection; false once the
   * client closed the connection before the end.
   */
  readonly finished: boolean;
  /** Resolves when the response's connection closed or it finished. */
  closed: Promise<void>;
}

export interface LocalSite {
  port: number;
  /**
   * A URL of this site under a test name.
   *
   * @param path the request target, default `/`
   * @param host the name in the URL, default `site.test` (map it to
   *   127.0.0.1 in the test resolver)
   * @returns e.g. `https://site.test:43123/path`
   */
  url(path?: string, host?: string): string;
  /** Every request received, in order. */
  requests: SeenRequest[];
  /** Every response started, in order. */
  responses: SeenResponse[];
  /** Stops listening and destroys open connections (a dripping one too). */
  close(): Promise<void>;
}

/** Key and certificate chain (PEM) of an HTTPS site. */
export interface SiteCertificate {
  key: string;
  cert: string;
}

/**
 * Starts a site on 127.0.0.1 on a free port.
 *
 * @param routes request path (without query) → {@link Route}; any other
 *   path answers 404 Not Found
 * @param options.tls serve HTTPS with this key and certificate (see
 *   {@link createTestCertificateAuthority}); default plain HTTP
 * @returns the running {@link LocalSite}
 * @throws the listen error
 */
export async function startLocalSite(
  routes: Readonly<Record<string, Route>>,
  options: { tls?: SiteCertificate } = {},
): Promise<LocalSite> {
  const requests: SeenRequest[] = [];
  const responses: SeenResponse[] = [];
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const target = request.url ?? '/';
    requests.push({
      method: request.method ?? '',
      target,
      headers: request.headers,
    });
    const record: SeenResponse = {
      target,
      get finished() {
        return response.writableFinished;
      },
      closed: new Promise((resolve) => {
        response.once('close', () => resolve());
      }),
    };
    responses.push(record);
    const route = routes[new URL(target, 'http://localhost').pathname];
    if (route) route(request, response);
    else response.writeHead(404).end('Not Found');
  };
  const server = options.tls
    ? createHttpsServer(
        { key: options.tls.key, cert: options.tls.cert },
        handler,
      )
    : createHttpServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const scheme = options.tls ? 'https' : 'http';
  return {
    port,
    requests,
    responses,
    url: (path = '/', host = 'site.test') =>
      `${scheme}://${host}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A route that answers `status` with a short text body. */
export function answer(
  status: number,
  headers: Record<string, string> = {},
): Route {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain', ...headers });
    response.end(`status ${status}\n`);
  };
}

/** A route that redirects (RFC 9110 §15.4) to `location` with `status` (default 302). */
export function redirectTo(location: string, status = 302): Route {
  return (_request, response) => {
    response.writeHead(status, { location }).end();
  };
}

/** A route that reads the request and never answers. */
export function neverAnswer(): Route {
  return () => undefined;
}

/**
 * A route that sends 200 and its headers at once, then one byte of body
 * every `intervalMs` for as long as the connection stays open.
 */
export function dripBody(intervalMs = 100): Route {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.flushHeaders();
    const timer = setInterval(() => response.write('.'), intervalMs);
    response.once('close', () => clearInterval(timer));
  };
}

/**
 * A route that sends 200 and a body of `totalBytes` (e.g. 10 MB) in 64 KiB
 * chunks, respecting backpressure, and stops when the connection closes.
 */
export function streamBytes(totalBytes: number): Route {
  return (_request, response) => {
    response.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(totalBytes),
    });
    const chunk = Buffer.alloc(65_536, 0x61);
    let left = totalBytes;
    const pump = () => {
      while (left > 0 && !response.destroyed) {
        const size = Math.min(left, chunk.length);
        left -= size;
        if (!response.write(chunk.subarray(0, size))) {
          response.once('drain', pump);
          return;
        }
      }
      if (left === 0) response.end();
    };
    pump();
  };
}

/** A TCP server on 127.0.0.1 that accepts connections and never sends a byte. */
export interface SilentServer {
  port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

/**
 * Starts a {@link SilentServer}: for a TLS handshake, or an HTTP answer,
 * that never comes.
 */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: TcpServer = createTcpServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    get accepted() {
      return accepted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A port on 127.0.0.1 where nothing listens (a connection is refused): one
 * the system just gave out and that was closed again.
 */
export async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A throwaway certificate authority for HTTPS test sites. */
export interface TestCertificateAuthority {
  /** The CA's own certificate (PEM): pass it as `CheckSettings.ca` to trust it. */
  cert: string;
  /** The CA's organisation (O), the issuer a check reports. */
  organization: string;
  /**
   * Issues a server certificate.
   *
   * @param options.names the subject alternative names (DNS names, or IP
   *   addresses); the first is also the subject's CN
   * @param options.notBefore, options.notAfter the validity period, past
   *   or future (an expired certificate has `notAfter` in the past);
   *   whole seconds, UTC
   * @returns the key and certificate (PEM) to pass to {@link startLocalSite}
   * @throws when `openssl` fails (its stderr is in the message)
   */
  issue(options: {
    names: readonly string[];
    notBefore: Date;
    notAfter: Date;
  }): SiteCertificate;
  /** Deletes the CA's files. */
  dispose(): void;
}

/** `YYYYMMDDHHMMSSZ`, the GeneralizedTime `openssl ca` reads. */
function opensslDate(date: Date): string {
  return `${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}

function openssl(args: readonly string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * Makes a test CA with the `openssl` CLI in a temporary directory: an EC
 * P-256 root (quick to make), which `openssl ca` then uses to sign server
 * certificates with any validity period, the past included.
 *
 * @param organization the CA's O, default `Vigil Test CA`
 * @returns the {@link TestCertificateAuthority}
 * @throws when `openssl` is missing or fails
 */
export function createTestCertificateAuthority(
  organization = 'Vigil Test CA',
): TestCertificateAuthority {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-monitor-ca-'));
  const config = join(dir, 'openssl.cnf');
  // Our own configuration, so that neither the system's openssl.cnf nor
  // its defaults change what the CA makes.
  writeFileSync(
    config,
    [
      '[ req ]',
      'distinguished_name = dn',
      '[ dn ]',
      '[ ca_extensions ]',
      'basicConstraints = critical, CA:TRUE',
      'keyUsage = critical, keyCertSign, cRLSign',
      'subjectKeyIdentifier = hash',
      '[ ca ]',
      'default_ca = test_ca',
      '[ test_ca ]',
      `database = ${join(dir, 'index.txt')}`,
      `new_certs_dir = ${dir}`,
      `certificate = ${join(dir, 'ca.pem')}`,
      `private_key = ${join(dir, 'ca.key')}`,
      `serial = ${join(dir, 'serial')}`,
      'default_md = sha256',
      'policy = any_name',
      'unique_subject = no',
      'email_in_dn = no',
      '[ any_name ]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '1000\n');
  const newKey = [
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
  ];
  openssl([
    'req',
    '-x509',
    '-config',
    config,
    '-extensions',
    'ca_extensions',
    ...newKey,
    '-days',
    '3650',
    // The name is UTF-8, so that a test may give the CA any characters.
    '-utf8',
    '-subj',
    `/O=${organization}/CN=${organization} Root`,
    '-keyout',
    join(dir, 'ca.key'),
    '-out',
    join(dir, 'ca.pem'),
  ]);
  let issued = 0;
  return {
    cert: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    organization,
    issue({ names, notBefore, notAfter }) {
      issued += 1;
      const base = join(dir, `site-${issued}`);
      const alternativeNames = names
        .map((name) => (isIP(name) ? `IP:${name}` : `DNS:${name}`))
        .join(', ');
      writeFileSync(
        `${base}.ext`,
        [
          '[ server ]',
          'basicConstraints = critical, CA:FALSE',
          'keyUsage = critical, digitalSignature',
          'extendedKeyUsage = serverAuth',
          `subjectAltName = ${alternativeNames}`,
          '',
        ].join('\n'),
      );
      openssl([
        'req',
        '-new',
        '-config',
        config,
        ...newKey,
        '-subj',
        `/CN=${names[0] ?? 'site.test'}`,
        '-keyout',
        `${base}.key`,
        '-out',
        `${base}.csr`,
      ]);
      openssl([
        'ca',
        '-batch',
        '-config',
        config,
        '-notext',
        '-in',
        `${base}.csr`,
        '-out',
        `${base}.pem`,
        '-extfile',
        `${base}.ext`,
        '-extensions',
        'server',
        '-startdate',
        opensslDate(notBefore),
        '-enddate',
        opensslDate(notAfter),
      ]);
      return {
        key: readFileSync(`${base}.key`, 'utf8'),
        cert: readFileSync(`${base}.pem`, 'utf8'),
      };
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
