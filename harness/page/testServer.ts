/**
 * Starts the real local server (server/app.ts) on a free loopback port,
 * serving a page that the browser project's global setup built; over HTTPS
 * with a throwaway self-signed certificate when asked, so that Secure and
 * domain-wide cookies can be tested on {@link TEST_PRODUCT_HOST}; sending
 * its mail to a test's SMTP server when asked, with links to itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer } from '../../server/app';
import type { DatabaseSettings } from '../../server/db/database';
import { serverOptionsFrom } from '../../server/environment';
import type {
  MonitorFeature,
  MonitorOptions,
} from '../../server/monitor/index';
import { TEST_BUILDS, TEST_PRODUCT_HOST, type TestBuild } from './paths';
import { freePort } from './embeddedPostgres';
import { scratchDatabase } from './scratchDatabase';

export interface TestServer {
  /** e.g. `http://localhost:43123` or `https://signup.vigil.test:43124` */
  origin: string;
  /**
   * The service's site monitor (`app.monitor`): a test that passed
   * `monitor` runs the due checks itself (`monitor.scheduler.runDue()`).
   */
  monitor: MonitorFeature;
  close: () => Promise<void>;
}

let certificate: { key: Buffer; cert: Buffer } | undefined;

function selfSignedCertificate() {
  if (!certificate) {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${TEST_PRODUCT_HOST}`,
        '-addext',
        `subjectAltName=DNS:${TEST_PRODUCT_HOST}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    certificate = {
      key: readFileSync(join(dir, 'key.pem')),
      cert: readFileSync(join(dir, 'cert.pem')),
    };
  }
  return certificate;
}

/**
 * Starts the server on a free port with the configuration the build was made
 * with, so that its Content-Security-Policy allows that build's tag, API and
 * error reports.
 *
 * @param options.rateLimit sign-ups per client IP; default 1000
 * @param options.build which of {@link TEST_BUILDS} to serve; default `tagged`
 * @param options.https serve on {@link TEST_PRODUCT_HOST} over HTTPS
 * @param options.plainHttp serve on {@link TEST_PRODUCT_HOST} over plain
 *   http: a page there is not a secure context (no `crypto.randomUUID`, no
 *   Secure cookie), as a deployment without TLS would be
 * @param options.database where the accounts live; default a scratch
 *   database of the run's engine (harness/page/scratchDatabase.ts)
 * @param options.smtpUrl send the service's mail (confirmation and sign-in
 *   links) to this SMTP server, e.g. a sink's `smtp://127.0.0.1:PORT`
 *   (harness/mail/smtpSink.ts), with `PUBLIC_URL` the server's own
 *   {@link TestServer.origin}, so that a browser can open the links in its mails.
 *   Default: no mail is sent (the outbox fills, and nothing sends it).
 *   Either way `PUBLIC_URL` is the server's own origin (the one host it
 *   answers, ADR-0109), so the port is picked before the server is built
 *   rather than left to `listen`.
 * @param options.monitor how the service checks sites; default: it checks
 *   none (the test's resolver and tripwire come with it when it does)
 */
export async function startTestServer(
  options: {
    rateLimit?: number;
    build?: TestBuild;
    https?: boolean;
    plainHttp?: boolean;
    database?: DatabaseSettings;
    smtpUrl?: string;
    monitor?: MonitorOptions;
  } = {},
): Promise<TestServer> {
  const build = TEST_BUILDS[options.build ?? 'tagged'];
  const originAt = (port: number) =>
    options.https
      ? `https://${TEST_PRODUCT_HOST}:${port}`
      : options.plainHttp
        ? `http://${TEST_PRODUCT_HOST}:${port}`
        : `http://localhost:${port}`;
  // PUBLIC_URL names the port (the only host the service answers, and
  // whether its cookies are Secure: ADR-0109), so the port comes first.
  const port = await freePort();
  const app = await buildServer({
    ...serverOptionsFrom(build.env, build.distDir),
    // Generous unless a test is about the limit: every test signs up.
    rateLimit: options.rateLimit ?? 1000,
    // No site is checked unless the test says how (its resolver maps
    // test names to loopback, its tripwire refuses anything else).
    monitor: options.monitor,
    database: options.database ?? (await scratchDatabase()),
    publicUrl: originAt(port),
    ...(options.https && { https: selfSignedCertificate() }),
    // Without an SMTP server of the test's, mail is queued and never sent
    // (not written into the project's ./data/mail).
    mail:
      options.smtpUrl === undefined
        ? undefined
        : {
            publicUrl: originAt(port),
            from: 'no-reply@vigil.test',
            transport: { kind: 'smtp', url: options.smtpUrl },
          },
  });
  try {
    await app.listen({ port, host: 'localhost' });
  } catch (error) {
    // The picked port was taken in between: close what was built (its
    // database and mail sender) rather than leave it running.
    await app.close();
    throw error;
  }
  const { port: bound } = app.server.address() as AddressInfo;
  return {
    origin: originAt(bound),
    monitor: app.monitor,
    close: () => app.close(),
  };
}
