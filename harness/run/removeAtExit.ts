/**
 * Scratch directories removed when this process exits: one `exit`
 * listener for them all. A worker that shares its modules between test
 * files (`isolate: false`) lives for many files, and a listener per
 * directory passed Node's limit of ten (MaxListenersExceededWarning).
 *
 * A worker that vitest terminates fires no `exit`: what it left is removed
 * with the run's own directory (./runTempDir.ts).
 */
import { rmSync } from 'node:fs';

const scratch = new Set<string>();

/**
 * Removes `path` (a directory, recursively) when this process exits.
 *
 * @returns `path`
 */
export function removeAtExit(path: string): string {
  if (scratch.size === 0) {
    process.once('exit', () => {
      for (const entry of scratch) {
        rmSync(entry, { recursive: true, force: true });
      }
    });
  }
  scratch.add(path);
  return path;
}
