/**
 * The sign-up service as an operator runs it: the built service
 * (`dist-server/start.mjs`, which the server projects' global setup builds
 * as `npm run build` does) in a process of its own, as `npm run serve`
 * runs it, configured by environment variables, so that tests can send it
 * signals, kill it and read what it logs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVER_BUNDLE } from '../../../scripts/buildServer';
import { freePort } from '../../../harness/page/embeddedPostgres';
import { PROJECT_ROOT } from '../../../harness/page/paths';
import { removeAtExit } from '../../../harness/run/removeAtExit';
import type { DatabaseSettings } from '../../../server/db/database';

export interface ServiceProcess {
  pid: number;
  origin: string;
  /**
   * Everything it wrote to stdout and stderr so far, line by line: a line
   * written before `/healthz` answered may still be in the pipe when the
   * start returns (wait for it with `expect.poll`); once `exited` settles,
   * every line is here.
   */
  output: string[];
  /** Settles when it has exited and its output is read to the end. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A directory under the OS temp dir, deleted when this process exits. */
function scratchDir(): string {
  return removeAtExit(mkdtempSync(join(tmpdir(), 'vigil-service-')));
}

/** The environment variables that put a service on a database. */
export function databaseEnv(settings: DatabaseSettings): NodeJS.ProcessEnv {
  return settings.engine === 'postgres'
    ? { DATABASE_URL: settings.url }
    : { DATA_DIR: settings.dataDir };
}

/**
 * How long a start may take before the test calls it a hang: a limit, not a
 * timing. A first start on a new PGlite data directory (its initdb) took
 * over 60 s while the browser tests shared the two cores (issue 36).
 */
const READY_LIMIT_MS = 150_000;

/**
 * Starts the service and, unless told not to, waits until `/healthz`
 * answers 200.
 *
 * @param env variables beside the test's own (PORT is chosen here)
 * @param options.waitReady false to return at once (for a start expected
 *   to fail)
 * @throws Error with its output when it exits or is not ready within
 *   {@link READY_LIMIT_MS}
 */
export async function startService(
  env: NodeJS.ProcessEnv,
  { waitReady = true }: { waitReady?: boolean } = {},
): Promise<ServiceProcess> {
  const port = await freePort();
  // The service reads only what the test gives it about its database.
  const {
    TEST_DATABASE_URL: _test,
    DATABASE_URL: _url,
    DATA_DIR: _dir,
    ...inherited
  } = process.env;
  const child = spawn(
    process.execPath,
    ['--enable-source-maps', SERVER_BUNDLE],
    {
      cwd: PROJECT_ROOT,
      env: {
        ...inherited,
        NODE_ENV: 'production',
        SIGNUP_RATE_LIMIT: '1000000000',
        // No site is checked unless the test is about the monitor (then
        // its names are pinned to loopback by MONITOR_RESOLVE).
        MONITOR: 'off',
        PORT: String(port),
        // Without SMTP_URL, mail is written under DATA_DIR (ADR-0100): on a
        // PostgreSQL server too, so a directory of the test's, never the
        // project's ./data.
        ...(env.DATA_DIR === undefined && { DATA_DIR: scratchDir() }),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  const collect = (chunk: Buffer) =>
    output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
  }>((resolveExit) =>
    // `close`, not `exit`: by then its stdout and stderr are read to their
    // end, so `output` holds every line it wrote.
    child.once('close', (code, signal) => resolveExit({ code, signal })),
  );
  const service: ServiceProcess = {
    pid: child.pid ?? 0,
    origin: `http://localhost:${port}`,
    output,
    exited,
  };
  if (!waitReady) return service;
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + READY_LIMIT_MS;
  while (Date.now() < deadline) {
    if (gone) {
      throw new Error(
        `the service exited before it was ready:\n${output.join('\n')}`,
      );
    }
    try {
      const health = await fetch(`${service.origin}/healthz`);
      if (health.status === 200) return service;
    } catch {
      // Not listening yet.
    }
    await new Promise((wait) => setTimeout(wait, 100));
  }
  child.kill('SIGKILL');
  throw new Error(
    `the service was not ready within ${READY_LIMIT_MS / 1000} s:\n${output.join('\n')}`,
  );
}
