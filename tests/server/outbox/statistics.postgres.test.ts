/**
 * The outbox's refresh of its statistics (ADR-0130) never waits for the
 * table's lock on PostgreSQL: a claim awaits it, and an autovacuum of
 * `deliveries` holds the lock an ANALYZE needs (SHARE UPDATE EXCLUSIVE,
 * PostgreSQL's "Explicit Locking") for as long as it runs. Here a second
 * session holds that lock while the refresh runs: the refresh ends at
 * once, skipping the table (`SKIP_LOCKED`), and the lock's holder is not
 * disturbed. PostgreSQL only: the embedded engine has one session.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from '../../../harness/page/scratchDatabase';
import type { Database } from '../../../server/db/database';
import { deliveriesRepository } from '../../../server/outbox/deliveries';
import { openServiceDatabase, type Schema } from '../../../server/schema';

let database: Database<Schema>;
let other: pg.Client;

beforeAll(async () => {
  const settings = await scratchDatabase();
  if (settings.engine !== 'postgres') throw new Error('PostgreSQL only');
  database = await openServiceDatabase(settings);
  other = new pg.Client({ connectionString: settings.url });
  await other.connect();
});

afterAll(async () => {
  await other?.end();
  await database?.close();
});

describe('the outbox’s statistics on PostgreSQL', () => {
  it('are not waited for while another session holds the table’s lock (an autovacuum)', async () => {
    await other.query('begin');
    await other.query('lock table deliveries in share update exclusive mode');
    try {
      const before = await analyzeCount();
      // Without SKIP_LOCKED this waits for the commit below: the test's
      // timeout ends it.
      await deliveriesRepository(database.db).refreshStatistics();
      expect(await analyzeCount()).toBe(before);
    } finally {
      await other.query('commit');
    }
    await deliveriesRepository(database.db).refreshStatistics();
    expect(await analyzeCount()).toBeGreaterThan(0);
  });
});

/** How often `deliveries` was analyzed by a statement. */
async function analyzeCount(): Promise<number> {
  const { rows } = await sql<{ count: string | number | null }>`
    select analyze_count as count from pg_stat_user_tables
     where relname = 'deliveries'`.execute(database.db);
  return Number(rows[0]?.count ?? 0);
}
