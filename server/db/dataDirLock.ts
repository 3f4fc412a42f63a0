/**
 * One instance per embedded data directory. PGlite takes no lock of its
 * own (its `postmaster.pid` holds a fixed fake process id), and two
 * processes writing one directory corrupt it (ADR-0048).
 *
 * The lock is the operating system's: an exclusive POSIX record lock
 * (`fcntl(F_SETLK)`, through `os-lock`) on a file in the directory. The
 * kernel releases it when the process ends, however it ends, so there is no
 * stale lock to judge after a crash and no live holder is ever taken over
 * (a heartbeat would be: PGlite's work blocks the event loop that would
 * beat it).
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { lock } from 'os-lock';

/** The lock file's name inside the data directory. */
export const LOCK_FILE = 'instance.lock';

/** Another process (or this one) holds the directory. */
export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `The data directory ${dataDir} is in use by another instance of the sign-up service. ` +
        'Only one instance can use an embedded data directory: stop the other one, give this one ' +
        'its own DATA_DIR, or let several instances share a PostgreSQL server with DATABASE_URL.',
    );
    this.name = 'DataDirLockedError';
  }
}

// POSIX record locks belong to the process: a second lock taken by the same
// process would succeed, and closing any descriptor of the file would drop
// the lock. So this process also remembers what it holds.
const heldHere = new Set<string>();

/** A held lock; `release` gives it back (once). */
export interface DataDirLock {
  readonly dataDir: string;
  release: () => void;
}

/**
 * Takes the data directory for this process, creating the directory when
 * it does not exist.
 *
 * @param dataDir the directory (relative to the working directory, or absolute)
 * @returns the held lock
 * @throws DataDirLockedError when another process, or this one, holds it
 * @throws the file system's error when the directory cannot be created or
 *   the lock file opened
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const absolute = resolve(dataDir);
  if (heldHere.has(absolute)) throw new DataDirLockedError(absolute);
  mkdirSync(absolute, { recursive: true });
  const fd = openSync(join(absolute, LOCK_FILE), 'a+');
  try {
    await lock(fd, { exclusive: true, immediate: true });
  } catch (error) {
    closeSync(fd);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EACCES') {
      throw new DataDirLockedError(absolute);
    }
    throw error;
  }
  heldHere.add(absolute);
  let held = true;
  return {
    dataDir: absolute,
    release() {
      if (!held) return;
      held = false;
      heldHere.delete(absolute);
      // Closing the descriptor drops the record lock.
      closeSync(fd);
    },
  };
}
