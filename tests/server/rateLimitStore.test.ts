/**
 * The rate limit's counter in the database (server/rateLimit/rateLimitStore.ts;
 * ADR-0039, ADR-0047): fixed windows per key, each request's own count even
 * when requests arrive together, a new window after one ends, a count per
 * route, and ended windows deleted. One count across instances:
 * tests/server/instances.postgres.test.ts.
 */
import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from '../../harness/page/scratchDatabase';
import type { Database } from '../../server/db/database';
import { openServiceDatabase, type Schema } from '../../server/schema';
import type { KyselyPlugin } from 'kysely';
import {
  databaseRateLimitStore,
  deleteEndedWindows,
  RequestCounter,
} from '../../server/rateLimit/rateLimitStore';

const WINDOW = 15 * 60 * 1000;

let database: Database<Schema>;
let counter: RequestCounter;
/** Counts one request for `key`, as the store does. */
const countRequest = (key: string, windowMs: number) =>
  counter.count(key, windowMs);

beforeAll(async () => {
  database = await openServiceDatabase(await scratchDatabase());
  counter = new RequestCounter(database.db);
});

afterAll(() => database.close());

function incr(
  store: FastifyRateLimitStore,
  key: string,
  windowMs = WINDOW,
): Promise<{ current: number; ttl: number }> {
  return new Promise((resolve, reject) =>
    store.incr(
      key,
      (error, result) => (error || !result ? reject(error) : resolve(result)),
      windowMs,
      1,
    ),
  );
}

describe('the rate limit in the database', () => {
  it('counts per key', async () => {
    expect((await countRequest('a', WINDOW)).current).toBe(1);
    expect((await countRequest('a', WINDOW)).current).toBe(2);
    expect((await countRequest('b', WINDOW)).current).toBe(1);
  });

  it('gives 50 simultaneous requests the counts 1 to 50 in the order they came, in fewer statements', async () => {
    let statements = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        statements += 1;
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    };
    const batched = new RequestCounter(database.db.withPlugin(counting));
    const counts = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        batched.count(index % 5 ? 'together' : 'apart', WINDOW),
      ),
    );
    const together = counts.filter((_, index) => index % 5);
    const apart = counts.filter((_, index) => !(index % 5));
    expect(together.map((count) => count.current)).toEqual(
      Array.from({ length: 40 }, (_, index) => index + 1),
    );
    expect(apart.map((count) => count.current)).toEqual(
      Array.from({ length: 10 }, (_, index) => index + 1),
    );
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThan(50);
  });

  it('tells every waiting request when the database fails', async () => {
    const broken = new RequestCounter(
      database.db.withPlugin({
        transformQuery: () => {
          throw new Error('the database is gone');
        },
        transformResult: (args) => Promise.resolve(args.result),
      }),
    );
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => broken.count('lost', WINDOW)),
    );
    expect(results.map((result) => result.status)).toEqual(
      Array.from({ length: 5 }, () => 'rejected'),
    );
    expect(
      results.map((result) =>
        result.status === 'rejected'
          ? (result.reason as Error).name
          : undefined,
      ),
    ).toEqual(Array.from({ length: 5 }, () => 'DatabaseUnavailableError'));
    // The same counter counts again once the database answers.
    expect((await countRequest('lost', WINDOW)).current).toBe(1);
  });

  it('gives the time left in the window, and starts a new one after it', async () => {
    const first = await countRequest('short', 400);
    expect(first.current).toBe(1);
    expect(first.ttl).toBeGreaterThan(0);
    expect(first.ttl).toBeLessThanOrEqual(400);
    const inside = await countRequest('short', 400);
    expect(inside.current).toBe(2);
    expect(inside.ttl).toBeLessThanOrEqual(first.ttl);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const next = await countRequest('short', 400);
    expect(next.current).toBe(1);
    expect(next.ttl).toBeGreaterThan(inside.ttl - 400);
  });

  it('gives a route with its own limit a count of its own', async () => {
    const Store = databaseRateLimitStore(database.db);
    const root = new Store({});
    const signUp = root.child({
      routeInfo: { method: 'POST', url: '/2/account/signup/' },
    } as unknown as Parameters<typeof root.child>[0]);
    const other = root.child({
      routeInfo: { method: 'POST', url: '/elsewhere' },
    } as unknown as Parameters<typeof root.child>[0]);
    expect((await incr(signUp, '203.0.113.9')).current).toBe(1);
    expect((await incr(signUp, '203.0.113.9')).current).toBe(2);
    expect((await incr(other, '203.0.113.9')).current).toBe(1);
  });

  it('deletes the windows that have ended, and only those', async () => {
    await countRequest('ended', 50);
    await countRequest('running', WINDOW);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await deleteEndedWindows(database.db)).toBeGreaterThanOrEqual(1);
    const left = await database.db
      .selectFrom('rate_limit_windows')
      .select('key')
      .where('key', 'in', ['ended', 'running'])
      .execute();
    expect(left.map((row) => row.key)).toEqual(['running']);
  });
});
