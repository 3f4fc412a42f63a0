/**
 * What the service benches (`npm run bench:monitor`, `npm run
 * bench:alerts`) share about the processes they start and watch: a
 * child's output, CPU time from Linux's /proc (proc(5)), the engine's
 * name, the page folder the service starts over, and the commit a
 * report names.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';

/** Resolves after `ms` milliseconds (at once for 0 or less). */
export const sleep = (ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Reads a child's stdout as it comes.
 *
 * @returns `text()`, all read so far; `waitFor(pattern)`, the first match
 *   of `pattern` in it, rejected when the child exits first
 */
export function lines(child: ChildProcess) {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    text: () => output,
    waitFor: (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (match) return resolve(match);
          if (child.exitCode !== null) {
            return reject(new Error(`child exited ${child.exitCode}`));
          }
          setTimeout(check, 20);
        };
        check();
      }),
  };
}

/**
 * CPU ticks (USER_HZ, 100 a second on Linux) of one process: `utime`
 * plus `stime` of /proc/PID/stat; NaN once it is gone.
 */
export function ticksOf(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return NaN;
  }
}

/**
 * The PostgreSQL processes serving `database` (their titles,
 * `postgres: user database …`, name it), each with its ticks
 * ({@link ticksOf}), by PID.
 */
export function postgresBackends(database: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (title.startsWith('postgres:') && title.includes(` ${database} `)) {
        found.set(pid, ticksOf(pid));
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * Busy and total jiffies of the whole machine, all CPUs (/proc/stat's
 * first line); idle and iowait are not busy.
 */
export function machineTicks(): { busy: number; total: number } {
  const [, ...fields] = (
    readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? ''
  ).split(/\s+/);
  const values = fields.filter(Boolean).map(Number);
  const total = values.reduce((sum, value) => sum + value, 0);
  return { busy: total - (values[3] ?? 0) - (values[4] ?? 0), total };
}

/**
 * The engine as `version()` names it, without its build:
 * "PostgreSQL 18.7 (PGlite 0.5.17)" or "PostgreSQL 18.4".
 */
export async function engineName<DB>(db: Kysely<DB>): Promise<string> {
  const { rows } = await sql<{ v: string }>`select version() as v`.execute(db);
  return rows[0]?.v.split(' on ')[0] ?? 'unknown';
}

/**
 * A page folder the service can start over (the benches need no page):
 * `vigil-bench-<name>-page` in the temporary directory, with a bare
 * `index.html`.
 *
 * @returns the folder's path
 */
export function placeholderDist(name: string): string {
  const dir = join(tmpdir(), `vigil-bench-${name}-page`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Bench</title>');
  return dir;
}

/**
 * The commit a report was written at: HEAD's short hash, and the files
 * under `paths` changed in the working tree, if any ("4d1348b with the
 * working tree's server/outbox/deliverer.ts"); "unknown" outside git.
 *
 * @param root the checkout
 * @param paths the folders whose changes the report names
 */
export function commitOf(root: string, paths: readonly string[]): string {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    // Porcelain lines: two status letters, a space, the path.
    const changed = git('status', '--porcelain', '--', ...paths)
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3));
    const head = git('rev-parse', '--short', 'HEAD').trim();
    return changed.length > 0
      ? `${head} with the working tree's ${changed.join(', ')}`
      : head;
  } catch {
    return 'unknown';
  }
}
