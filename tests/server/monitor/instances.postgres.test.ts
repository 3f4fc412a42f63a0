/**
 * Two instances on one PostgreSQL server share the monitoring (issue 45): 200
 * sites, 3 intervals, every site checked once per interval by one of them
 * and never twice, and one "down" and one "back up" alert per incident.
 * Both run in this process on the test's clock; each claims with its own
 * connections, so their claims race as two processes' would.
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from '../../../harness/page/scratchDatabase';
import { apiServer, signUpForLogin } from '../support/apiServer';
import {
  startSwitchableSite,
  testClock,
  testMonitorOptions,
  TEST_INTERVAL_MS,
  type SwitchableSite,
} from '../../../harness/monitor/monitorService';
import { loopbackTripwire } from '../../../harness/monitor/tripwire';

const SITES = 200;
/** Sites 1 to 20 go down in the first interval and come back in the third. */
const FAILING = 20;

let site: SwitchableSite;
let instances: FastifyInstance[] = [];
const tripwire = loopbackTripwire();
const clock = testClock();

beforeAll(async () => {
  site = await startSwitchableSite();
  const database = await scratchDatabase();
  instances = [
    await apiServer({
      database,
      monitor: testMonitorOptions(clock, tripwire, { concurrency: 25 }),
    }),
    await apiServer({
      database,
      monitor: testMonitorOptions(clock, tripwire, { concurrency: 25 }),
    }),
  ];
});

afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.close()));
  await site.close();
});

describe('two instances on one PostgreSQL server', () => {
  it('check each of 200 sites once per interval, none twice, and queue one alert of each kind per incident', async () => {
    const [first, second] = instances;
    if (!first || !second) throw new Error('two instances');
    for (let n = 1; n <= SITES; n += 1) {
      await signUpForLogin(n % 2 ? first : second, { url: site.url(n) });
    }
    // Alerts go to confirmed addresses only; how an address is confirmed
    // is the mail tests' business.
    await sql`update accounts set confirmed_at = now()`.execute(
      first.database.db,
    );
    for (let n = 1; n <= FAILING; n += 1) site.set(n, 'fail');

    const shares: number[][] = [];
    for (let round = 0; round < 3; round += 1) {
      if (round === 2) for (let n = 1; n <= FAILING; n += 1) site.set(n, 'up');
      if (round > 0) clock.advance(TEST_INTERVAL_MS);
      const before = Array.from({ length: SITES }, (_, i) => site.hits(i + 1));
      shares.push(
        await Promise.all(
          instances.map(
            (instance) => instance.monitor.scheduler?.runDue() ?? 0,
          ),
        ),
      );
      const checked = Array.from(
        { length: SITES },
        (_, i) => site.hits(i + 1) - (before[i] ?? 0),
      );
      // Every site once: a failing one's retest (a third of the interval
      // after its first failure) is its check of the next interval.
      expect(checked, `interval ${round + 1}`).toEqual(
        Array.from({ length: SITES }, () => 1),
      );
    }
    // Both took a share of every interval.
    for (const share of shares) {
      expect(share.reduce((sum, ran) => sum + ran, 0)).toBe(SITES);
      for (const ran of share) expect(ran).toBeGreaterThan(0);
    }

    const alerts = await sql<{ url: string; kind: string; count: string }>`
      select accounts.site_url as url,
             replace(deliveries.kind, 'site.', '') as kind,
             count(*)::text as count
        from deliveries join accounts on accounts.id = deliveries.account_id
       where deliveries.kind in ('site.down', 'site.up')
       group by 1, 2`.execute(first.database.db);
    const expected = Array.from({ length: FAILING }, (_, i) => site.url(i + 1))
      .flatMap((url) => [
        { url, kind: 'down', count: '1' },
        { url, kind: 'up', count: '1' },
      ])
      .sort((a, b) => `${a.url}${a.kind}`.localeCompare(`${b.url}${b.kind}`));
    expect(
      alerts.rows.sort((a, b) =>
        `${a.url}${a.kind}`.localeCompare(`${b.url}${b.kind}`),
      ),
    ).toEqual(expected);
    expect(tripwire.violations).toEqual([]);
  });
});
