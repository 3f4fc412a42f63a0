/**
 * A fresh, empty database for one server of the tests (or the atlas), on
 * the engine the run asks for:
 *
 * - with `TEST_DATABASE_URL` (a PostgreSQL server's admin URL, which the
 *   test projects on PostgreSQL set: harness/page/postgresSetup.ts): a new
 *   database on that server;
 * - otherwise the embedded default: a new `DATA_DIR` under the OS temp
 *   dir, holding a copy of an initialised PGlite directory (creating one
 *   costs seconds, copying it a fraction of one): `TEST_PGLITE_TEMPLATE`'s,
 *   or {@link cachedPgliteTemplate}.
 *
 * The service runs its migrations on either when it starts, as in
 * production. A PGlite directory is deleted when the process exits; a
 * database on the server goes with the server.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import {
  createPgliteDir,
  PGLITE_DIR,
  type DatabaseSettings,
} from '../../server/db/database';
import { removeAtExit } from '../run/removeAtExit';
import { PROJECT_ROOT } from './paths';

/** The variable that switches the tests to a PostgreSQL server. */
export const TEST_DATABASE_URL = 'TEST_DATABASE_URL';
/**
 * The engine a test project's databases are on (`pglite` or `postgres`),
 * set by each project in vitest.config.ts. Without it (a script, a run of
 * one project), {@link TEST_DATABASE_URL} decides. It is needed because a
 * global setup's variables reach every worker of the run: when the
 * PostgreSQL projects run beside the embedded ones (`npm run
 * test:server`), the server's URL reached the embedded projects' workers
 * too, and their services all ran on PostgreSQL.
 */
export const TEST_DATABASE_ENGINE = 'TEST_DATABASE_ENGINE';
/** The variable naming an initialised PGlite directory to copy. */
export const TEST_PGLITE_TEMPLATE = 'TEST_PGLITE_TEMPLATE';

/**
 * The initialised (not migrated) PGlite directory that a test run's
 * scratch databases copy, made once per installed PGlite version and kept
 * in `node_modules/.cache/vigil/` (creating one takes about 3 s of a core,
 * which every vitest run on PGlite paid in its global setup). Two runs
 * that start together may both create it; the first to move it into
 * place wins, and the other uses it.
 *
 * @returns its path
 * @throws Error with PGlite's output when its initdb fails
 */
export async function cachedPgliteTemplate(): Promise<string> {
  const pglite = join(PROJECT_ROOT, 'node_modules/@electric-sql/pglite');
  const { version } = JSON.parse(
    readFileSync(join(pglite, 'package.json'), 'utf8'),
  ) as { version: string };
  const directory = join(
    PROJECT_ROOT,
    'node_modules/.cache/vigil',
    `pglite-${version}`,
    PGLITE_DIR,
  );
  const made = () => existsSync(join(directory, 'PG_VERSION'));
  if (!made()) {
    mkdirSync(dirname(directory), { recursive: true });
    try {
      await createPgliteDir(directory);
    } catch (error) {
      // Unless another run moved its copy into place first.
      if (!made()) throw error;
    }
  }
  return directory;
}

let created = 0;

/**
 * @param env where to read {@link TEST_DATABASE_URL} and
 *   {@link TEST_PGLITE_TEMPLATE} (default `process.env`)
 * @returns the settings of a database no other server uses
 */
export async function scratchDatabase(
  env: NodeJS.ProcessEnv = process.env,
): Promise<DatabaseSettings> {
  created += 1;
  const engine = env[TEST_DATABASE_ENGINE];
  const adminUrl = engine === 'pglite' ? undefined : env[TEST_DATABASE_URL];
  if (engine === 'postgres' && !adminUrl) {
    throw new Error(
      `${TEST_DATABASE_ENGINE}=postgres needs ${TEST_DATABASE_URL} (harness/page/postgresSetup.ts)`,
    );
  }
  if (adminUrl) {
    const name = `vigil_${process.pid}_${created}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(
        `drop database if exists ${admin.escapeIdentifier(name)}`,
      );
      await admin.query(`create database ${admin.escapeIdentifier(name)}`);
    } finally {
      await admin.end();
    }
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return { engine: 'postgres', url: url.toString() };
  }
  const template = env[TEST_PGLITE_TEMPLATE] ?? (await cachedPgliteTemplate());
  const dataDir = removeAtExit(mkdtempSync(join(tmpdir(), 'vigil-data-')));
  cpSync(template, join(dataDir, PGLITE_DIR), { recursive: true });
  return { engine: 'pglite', dataDir };
}
