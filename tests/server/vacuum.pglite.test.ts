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
      // What VACUUM leaves in the catalog (not the statistics, which the
      // embedded engine reports lazily): the pages it found all visible.
      // A rewrite clears them; only a VACUUM sets them again.
      const allVisiblePages = async () =>
        Number(
          (
            await sql<{ pages: string | number }>`select relallvisible as pages
              from pg_class where relname = 'monitors'`.execute(db)
          ).rows[0]?.pages ?? 0,
        );
      await rewrite();
      expect(await allVisiblePages()).toBe(0);
      // Watched, not replaced: the pass's own VACUUM runs, and the test
      // waits for its end rather than for a time.
      const vacuum = vi.spyOn(app.database, 'vacuum');
      vi.advanceTimersByTime(HOUSEKEEPING_INTERVAL_MS);
      await expect
        .poll(() => vacuum.mock.results.length, { timeout: 30_000 })
        .toBe(1);
      await vacuum.mock.results[0]?.value;
      expect(await allVisiblePages()).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});
