/**
 * Opens the sign-up service's database (docs/architecture.md, "The sign-up
 * service"; ADR-0048) and brings its schema up to date:
 *
 * - the embedded default, PGlite (PostgreSQL compiled to WebAssembly, in
 *   this process) in `DATA_DIR`, locked to one instance;
 * - a PostgreSQL server at `DATABASE_URL`, which any number of instances
 *   share.
 *
 * Both speak the same SQL through one Kysely instance typed by
 * server/schema.ts; the repositories never know which one they talk to.
 */
import { execFile } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { lockDataDir, type DataDirLock } from './dataDirLock';
import { migrateToLatest, type Migrations } from './migrate';
import { unlessUnavailable } from './unavailable';

/** Where the accounts live: `DATA_DIR` or `DATABASE_URL` (docs/contract.md). */
export type DatabaseSettings =
  { engine: 'pglite'; dataDir: string } | { engine: 'postgres'; url: string };

/**
 * An open database with its schema up to date; `DB` is its tables, by
 * name, as Kysely sees them (server/schema.ts: every feature's).
 */
export interface Database<DB> {
  readonly engine: DatabaseSettings['engine'];
  readonly db: Kysely<DB>;
  /**
   * Whether the database answers a trivial query within `timeoutMs`.
   *
   * @returns true when it does; never throws
   */
  ping(timeoutMs?: number): Promise<boolean>;
  /**
   * Reclaims the dead rows of every table, and refreshes the planner's
   * statistics of them, on the embedded engine, which has no autovacuum
   * (PGlite runs PostgreSQL as one backend, without its background
   * workers): without it, rows rewritten often (a site's, at every check)
   * would grow the data directory without end (`npm run bench:monitor`).
   * Does nothing on a PostgreSQL server, whose autovacuum does it.
   *
   * @throws DatabaseUnavailableError (./unavailable.ts) when the database fails
   */
  vacuum(): Promise<void>;
  /** Closes the connections (or PGlite) and releases the data directory. */
  close(): Promise<void>;
}

/**
 * A read-only open found no database where it was told to look: nothing
 * was created there (a read must not pass an empty database off as one).
 */
export class NoDatabaseError extends Error {
  constructor(readonly dataDir: string) {
    super(`${dataDir} holds no database`);
    this.name = 'NoDatabaseError';
  }
}

/**
 * The PostgreSQL setting of a read-only open: every transaction of the
 * session is READ ONLY, so no statement can change a row or the schema.
 */
const READ_ONLY_SETTING = ['-c', 'default_transaction_read_only=on'];

/** What the database tells the operator about (never personal data). */
export type DatabaseLog = (message: string) => void;

/** PGlite's own data directory inside `DATA_DIR`, beside the lock file. */
export const PGLITE_DIR = 'pglite';

/**
 * How long a query to a PostgreSQL server may take, in milliseconds: well
 * under the page's 20 s deadline (ADR-0025), so a stuck server gives the page
 * the API's own failure rather than a time-out.
 */
export const STATEMENT_TIMEOUT_MS = 10_000;
/** How long the service waits for a PostgreSQL server at start, in ms. */
export const STARTUP_WAIT_MS = 30_000;

const execFileAsync = promisify(execFile);

/**
 * PostgreSQL settings of the embedded database. PGlite's default 128 MB of
 * shared buffers live in this process's memory once touched; 8 MB hold a
 * sign-up service's hot pages (the rest is in the operating system's file
 * cache) and keep the process under 400 MB, with room, after 10,000
 * sign-ups, at the same throughput as 16 MB (docs/performance.md, "The
 * sign-up service").
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=8MB'];

/**
 * Creates PGlite's data directory in a child process, then moves it into
 * place. PGlite's initdb leaves the process that ran it about 800 MB larger
 * for good; a directory that exists opens in under 200 MB. The move makes
 * the creation all or nothing: a start that dies halfway leaves no
 * half-made directory behind.
 *
 * @param target the directory to create (it must not exist)
 * @throws Error with PGlite's output when initdb fails; the rename's error
 *   when `target` exists by then
 */
export async function createPgliteDir(target: string): Promise<void> {
  const scratch = `${target}.creating-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  await execFileAsync(process.execPath, [
    '-e',
    `require(${JSON.stringify(pglite)}).PGlite.create(process.argv[1])
      .then((db) => db.close())
      .catch((error) => { console.error(error); process.exit(1); });`,
    scratch,
  ]);
  try {
    renameSync(scratch, target);
  } catch (error) {
    // The target appeared meanwhile (another process made it): leave no
    // scratch copy behind.
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}

async function openPglite<DB>(
  dataDir: string,
  log: DatabaseLog,
  readOnly: boolean,
): Promise<{ db: Kysely<DB>; lock: DataDirLock }> {
  const holdsDatabase = (directory: string) =>
    existsSync(join(directory, PGLITE_DIR, 'PG_VERSION'));
  // Checked before the lock, which would create the directory.
  if (readOnly && !holdsDatabase(dataDir)) {
    throw new NoDatabaseError(resolve(dataDir));
  }
  const lock = await lockDataDir(dataDir);
  try {
    const directory = join(lock.dataDir, PGLITE_DIR);
    if (!holdsDatabase(lock.dataDir)) {
      log(`Creating the embedded database in ${directory}`);
      await createPgliteDir(directory);
    }
    const pglite = await PGlite.create(directory, {
      startParams: [
        ...PGlite.defaultStartParams,
        ...PGLITE_SETTINGS,
        ...(readOnly ? READ_ONLY_SETTING : []),
      ],
    });
    return {
      db: new Kysely<DB>({ dialect: new PGliteDialect({ pglite }) }),
      lock,
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

function openPostgres<DB>(
  url: string,
  log: DatabaseLog,
  readOnly: boolean,
): Kysely<DB> {
  const pool = new pg.Pool({
    connectionString: url,
    ...(readOnly && { options: READ_ONLY_SETTING.join(' ') }),
    max: 10,
    connectionTimeoutMillis: 5_000,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS + 1_000,
  });
  // An idle connection the server drops (a restart, a failover) must not
  // end the process; the pool makes a new one for the next query.
  pool.on('error', (error) =>
    log(`A database connection failed while idle: ${error.message}`),
  );
  pool.on('connect', (client) => {
    // Nor may one that drops while a request holds it: the pool listens to
    // idle connections only, and an 'error' nobody listens to is thrown.
    client.on('error', (error) =>
      log(`A database connection failed while in use: ${error.message}`),
    );
    // A FATAL (or PANIC) error ends the session on the server's side
    // (PostgreSQL's protocol, "Message Flow"), though its socket may close
    // a while later. End ours now, so the pool drops the connection when
    // it is given back instead of handing it to the next request. The
    // severity is localised by the server's lc_messages; SQLSTATE class 57P
    // (operator intervention: shutdown, termination) is not.
    client.connection.on('errorMessage', (message: pg.DatabaseError) => {
      if (
        message.severity === 'FATAL' ||
        message.severity === 'PANIC' ||
        message.code?.startsWith('57P')
      ) {
        void client.end();
      }
    });
  });
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * A URL with credentials (`DATABASE_URL`, `SMTP_URL`) as the operator may
 * see it in a message: no user name or password, and no query or fragment,
 * which may hold them too (`?password=`, `?sslpassword=` of libpq's
 * connection URIs; issue 46).
 *
 * @param name the variable, named when the URL cannot be read
 * @returns the scheme, host, port and path
 */
export function redactedUrl(url: string, name = 'DATABASE_URL'): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString();
  } catch {
    return `(an unreadable ${name})`;
  }
}

async function waitForServer<DB>(
  db: Kysely<DB>,
  url: string,
  log: DatabaseLog,
  waitMs: number,
): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await sql`select 1`.execute(db);
      return;
    } catch (error) {
      if (Date.now() >= deadline) {
        throw new Error(
          `The PostgreSQL server at ${redactedUrl(url)} did not answer within ${Math.round(waitMs / 1000)} s: ${(error as Error).message}`,
        );
      }
      log(`Waiting for the PostgreSQL server at ${redactedUrl(url)}`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** How to open: to write (running the given migrations) or only to read. */
export type OpenOptions = {
  /** How long to wait for a PostgreSQL server that does not answer yet (default {@link STARTUP_WAIT_MS}). */
  startupWaitMs?: number | undefined;
} & (
  | {
      readOnly?: false;
      /** Every migration of the schema, by name (server/schema.ts). */
      migrations: Migrations;
    }
  | {
      /**
       * A reader (`npm run consent:export`): no database is created, no
       * migration runs, and every transaction is READ ONLY.
       */
      readOnly: true;
    }
);

/**
 * Opens the database and runs the migrations that have not run yet; or,
 * read-only, opens it as it is.
 *
 * @param settings the embedded directory or the server's URL
 * @param log receives what an operator should know (no personal data)
 * @param options to write, with the migrations, or to read
 * @returns the open database, typed by its tables `DB`
 * @throws DataDirLockedError (server/db/dataDirLock.ts) when another instance
 *   holds `DATA_DIR`; NoDatabaseError when a read-only open finds no
 *   embedded database in `DATA_DIR`; an Error naming the server when it
 *   does not answer in time; a migration's error
 */
export async function openDatabase<DB>(
  settings: DatabaseSettings,
  log: DatabaseLog = () => {},
  options: OpenOptions,
): Promise<Database<DB>> {
  const { startupWaitMs = STARTUP_WAIT_MS } = options;
  const readOnly = options.readOnly === true;
  let db: Kysely<DB>;
  let lock: DataDirLock | undefined;
  if (settings.engine === 'pglite') {
    ({ db, lock } = await openPglite<DB>(settings.dataDir, log, readOnly));
  } else {
    db = openPostgres<DB>(settings.url, log, readOnly);
  }
  const close = async () => {
    try {
      await db.destroy();
    } finally {
      lock?.release();
    }
  };
  try {
    if (settings.engine === 'postgres') {
      await waitForServer(db, settings.url, log, startupWaitMs);
    }
    if (options.readOnly !== true) {
      const applied = await migrateToLatest(db, options.migrations);
      if (applied.length > 0) {
        log(`Applied migrations: ${applied.join(', ')}`);
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    engine: settings.engine,
    db,
    async ping(timeoutMs = 2_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const query = sql`select 1`.execute(db).then(
        () => true,
        () => false,
      );
      try {
        return await Promise.race([query, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async vacuum() {
      if (settings.engine !== 'pglite' || readOnly) return;
      await unlessUnavailable(() =>
        // Every table: this layer names none of the features' tables; a
        // table with no dead rows costs a look at its visibility map.
        sql`vacuum (analyze)`.execute(db),
      );
    },
    close,
  };
}
