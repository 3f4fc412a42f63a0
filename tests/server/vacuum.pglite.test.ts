/**
 * The embedded engine has no autovacuum (PGlite runs PostgreSQL as one
 * backend, without background workers), so housekeeping vacuums the tables
 * the service rewrites: the monitors' rows, rewritten at every check, must
 * not grow the data directory without end. On a PostgreSQL server its own
 * autovacuum does it, so this file runs on PGlite only.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HOUSEKEEPING_INTERVAL_MS } from '../../server/app';
import { apiServer, signUpForLogin } from './support/apiServer';

afterEach(() => {
  vi.useRealTimers();
});

describe('housekeeping on the embedded engine', () => {
  it('vacuums the rewritten monitors every pass', async () => {
    // Only the service's timer is the test's.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const app = await apiServer();
    try {
      for (let n = 0; n < 50; n += 1) {
        await signUpForLogin(app, { url: `https://site${n}.example` });
      }
      const { db } = app.database;
      const rewrite = async () => {
        for (let round = 0; round < 20; round += 1) {
          // As a check's result does: a new state and next due time.
          await sql`update monitors set claims = claims + 1,
            next_check_at = next_check_at + interval '1 minute'`.execute(db);
        }
      };
      // VACUUM reports itself to the statistics at once (row counts are
      // reported lazily, so they are no measure here).
      const vacuums = async () =>
        Number(
          (
            await sql<{ count: string | number }>`select vacuum_count as count
              from pg_stat_user_tables where relname = 'monitors'`.execute(db)
          ).rows[0]?.count ?? 0,
        );
      await rewrite();
      const before = await vacuums();
      // Watched, not replaced: the pass's own VACUUM runs, and the test
      // waits for its end rather than for a time.
      const vacuum = vi.spyOn(app.database, 'vacuum');
      vi.advanceTimersByTime(HOUSEKEEPING_INTERVAL_MS);
      await expect
        .poll(() => vacuum.mock.results.length, { timeout: 30_000 })
        .toBe(1);
      await vacuum.mock.results[0]?.value;
      await expect.poll(vacuums).toBe(before + 1);
    } finally {
      await app.close();
    }
  });
});
