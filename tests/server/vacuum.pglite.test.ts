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
  it('reclaims the dead rows of rewritten monitors, so their table stops growing', async () => {
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
          await sql`update monitors set claims = claims + 1`.execute(db);
        }
      };
      // VACUUM reports itself to the statistics at once; row counts are
      // reported lazily, so the test waits on the vacuums' count.
      const vacuums = async () =>
        Number(
          (
            await sql<{ count: string | number }>`select vacuum_count as count
              from pg_stat_user_tables where relname = 'monitors'`.execute(db)
          ).rows[0]?.count ?? 0,
        );
      const size = async () =>
        Number(
          (
            await sql<{ bytes: string | number }>`
              select pg_relation_size('monitors') as bytes`.execute(db)
          ).rows[0]?.bytes ?? 0,
        );
      const fresh = await size();
      await rewrite();
      // Every rewrite left a dead copy of each row behind.
      const grown = await size();
      expect(grown).toBeGreaterThan(fresh * 5);

      const before = await vacuums();
      vi.advanceTimersByTime(HOUSEKEEPING_INTERVAL_MS);
      // The housekeeping runs on the database; wait for it, not for a time.
      await expect.poll(vacuums, { timeout: 30_000 }).toBe(before + 1);
      // As many rewrites again reuse the space the vacuum freed.
      await rewrite();
      expect(await size()).toBe(grown);
    } finally {
      await app.close();
    }
  });
});
