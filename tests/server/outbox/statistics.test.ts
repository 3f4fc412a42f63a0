/**
 * The outbox refreshes the planner's statistics of its table when a claim
 * finds a backlog (ADR-0130), on both engines: with statistics taken while
 * nothing was pending, each claim of a backlog joined its rows through the
 * lane's partial index row by row, 27 times slower (`npm run bench:claim`).
 * PGlite has no autovacuum; PostgreSQL's comes long after an incident's
 * backlog has formed. A claim that takes every due delivery without
 * filling its lane's slots is no backlog, and analyzes nothing.
 *
 * What is read: the engine's own count of manual ANALYZEs of the table
 * (`pg_stat_user_tables.analyze_count`; autovacuum's are counted apart),
 * and the statistics it kept (`pg_stats`): the refresh samples at a
 * statistics target of 10 (ADR-0130), whose histograms hold at most 11
 * bounds, where the engines' default of 100 keeps up to 101.
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LANE_LOOPS } from '../../../server/outbox/deliverer';
import {
  startOutboxService,
  testNotice,
  type OutboxService,
} from '../support/outboxService';

/** The mail lane's slots: a claim this large is full. */
const MAIL_SLOTS = LANE_LOOPS.mail.concurrency;

let outbox: OutboxService;

beforeEach(async () => {
  outbox = await startOutboxService();
});

afterEach(async () => {
  await outbox.close();
});

/** Queues `count` mails to the service's SMTP sink, each its own stream. */
function queueMails(count: number): Promise<string[]> {
  return outbox.queue(
    Array.from({ length: count }, (_, n) => ({
      channel: 'email' as const,
      target: `someone${n}@example.test`,
      stream: `mail:${n}`,
      payload: testNotice(`mail${n}`),
      deadlineIn: '1 hour',
    })),
  );
}

/** How often `deliveries` was analyzed by a statement (not by autovacuum). */
async function analyzeCount(): Promise<number> {
  const { rows } = await sql<{ count: string | number | null }>`
    select analyze_count as count from pg_stat_user_tables
     where relname = 'deliveries'`.execute(outbox.app.database.db);
  return Number(rows[0]?.count ?? 0);
}

describe('the outbox’s statistics', () => {
  it('are refreshed once a claim finds more due deliveries than its lane’s slots', async () => {
    const before = await analyzeCount();
    await queueMails(MAIL_SLOTS + 10);
    await outbox.drain();

    const { rows } = await sql<{ count: string | number }>`
      select count(*) as count from deliveries
       where state = 'sent' and kind = 'test.ping'`.execute(
      outbox.app.database.db,
    );
    expect(Number(rows[0]?.count)).toBe(MAIL_SLOTS + 10);
    expect(await analyzeCount()).toBe(before + 1);
  });

  it('are taken from a small sample (a statistics target of 10)', async () => {
    await queueMails(MAIL_SLOTS + 10);
    await outbox.drain();

    // Every row's address differs: a histogram of target 10 has 10
    // buckets (11 bounds); of the default target, one bound per row.
    const { rows } = await sql<{ bounds: number | null }>`
      select array_length(histogram_bounds::text::text[], 1) as bounds
        from pg_stats
       where tablename = 'deliveries' and attname = 'target'`.execute(
      outbox.app.database.db,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.bounds).toBeGreaterThan(1);
    expect(rows[0]?.bounds).toBeLessThanOrEqual(11);
  });

  it('are left alone when every claim takes all that is due', async () => {
    const before = await analyzeCount();
    await queueMails(10);
    await outbox.drain();

    expect(await analyzeCount()).toBe(before);
  });
});
