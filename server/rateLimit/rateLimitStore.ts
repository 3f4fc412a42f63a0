/**
 * The counter behind `SIGNUP_RATE_LIMIT` (docs/contract.md
 * "Configuration"; ADR-0039, ADR-0047): a store for
 * @fastify/rate-limit that keeps its fixed windows in the database, so
 * every instance on one database counts against one limit.
 *
 * Requests are counted by atomic upserts whose `RETURNING` gives the new
 * count, and each request gets a count of its own, so simultaneous
 * requests, from one instance or several, see 1, 2, 3… and exactly `max` of
 * them pass (the plugin's own LocalStore answered every increment with one
 * shared object, which let simultaneous requests all read the last count).
 * Requests that arrive while a statement runs share the next one
 * ({@link RequestCounter}): under load the counting costs one statement
 * per batch, not per request. The window is measured by the database's
 * clock, the same for every instance.
 */
import rateLimit, {
  type FastifyRateLimitStore,
  type FastifyRateLimitStoreCtor,
} from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { sql, type Kysely } from 'kysely';
import '../db/housekeeping';
import { deleteInBatches, type BatchOptions } from '../db/batchedWrites';
import { unlessUnavailable } from '../db/unavailable';
import type { RateLimitTables } from './tables';

type IncrCallback = Parameters<FastifyRateLimitStore['incr']>[1];

/**
 * The route a child store counts for. The plugin passes `child` its merged
 * options with the route under `routeInfo` (as its own RedisStore reads
 * them), which its type declaration does not say.
 */
function routeOf(options: object): string {
  const info: unknown = 'routeInfo' in options ? options.routeInfo : undefined;
  if (typeof info !== 'object' || info === null) return '';
  const { method, url } = info as { method?: unknown; url?: unknown };
  return `${String(method)} ${String(url)} `;
}

/** One key's share of a batch: how many requests, over which window. */
export interface KeyIncrement {
  key: string;
  /** Requests counted for this key in this statement (≥ 1). */
  requests: number;
  /** The window's length, in milliseconds. */
  windowMs: number;
}

/** A key's count after a statement, and the milliseconds left of its window. */
export interface KeyCount {
  key: string;
  hits: number;
  ttl: number;
}

/**
 * Counts requests for several keys in one atomic upsert: a key whose window
 * has ended starts a new one with these requests; otherwise they are added
 * to its count.
 *
 * @param increments distinct keys (the statement may touch a row once)
 * @returns each key's count after this statement and its window's time left
 * @throws DatabaseUnavailableError when the database fails
 */
export async function countRequests(
  db: Kysely<RateLimitTables>,
  increments: readonly KeyIncrement[],
): Promise<KeyCount[]> {
  const expired = sql<boolean>`rate_limit_windows.window_ends_at <= now()`;
  return unlessUnavailable(() =>
    db
      .insertInto('rate_limit_windows')
      .values(
        increments.map(({ key, requests, windowMs }) => ({
          key,
          hits: requests,
          window_ends_at: sql<Date>`now() + make_interval(secs => ${windowMs / 1000})`,
        })),
      )
      .onConflict((conflict) =>
        conflict.column('key').doUpdateSet({
          hits: sql<number>`case when ${expired} then excluded.hits else rate_limit_windows.hits + excluded.hits end`,
          window_ends_at: sql<Date>`case when ${expired} then excluded.window_ends_at else rate_limit_windows.window_ends_at end`,
        }),
      )
      .returning([
        'key',
        'hits',
        sql<number>`ceil(extract(epoch from window_ends_at - now()) * 1000)::integer`.as(
          'ttl',
        ),
      ])
      .execute(),
  );
}

/** A request waiting for its count. */
interface Waiting {
  key: string;
  windowMs: number;
  settle: (
    error: Error | null,
    result?: { current: number; ttl: number },
  ) => void;
}

/**
 * Counts requests as they arrive, one statement at a time: while one is in
 * the database, the requests that arrive meanwhile wait and go together in
 * the next, each key once with its number of requests (in key order, so
 * that two instances' statements never wait on each other's rows in a
 * circle). A request alone goes at once. Each request is then given its own
 * count, in the order it arrived: a key counted n times whose count became
 * T gives T − n + 1 … T, exactly as n statements of one would.
 */
export class RequestCounter {
  #waiting: Waiting[] = [];
  #busy = false;

  constructor(private readonly db: Kysely<RateLimitTables>) {}

  /**
   * Counts one request for `key`.
   *
   * @param windowMs the window's length, in milliseconds
   * @returns this request's count in the window and the milliseconds left
   *   of it
   * @throws DatabaseUnavailableError when the database fails
   */
  count(
    key: string,
    windowMs: number,
  ): Promise<{ current: number; ttl: number }> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({
        key,
        windowMs,
        settle: (error, result) =>
          error || !result ? reject(error) : resolve(result),
      });
      if (!this.#busy) {
        this.#busy = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    this.#busy = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting;
      this.#waiting = [];
      const byKey = new Map<string, Waiting[]>();
      for (const request of batch) {
        byKey.set(request.key, [...(byKey.get(request.key) ?? []), request]);
      }
      const keys = [...byKey.keys()].sort();
      try {
        const counts = await countRequests(
          this.db,
          keys.map((key) => {
            const requests = byKey.get(key) ?? [];
            return {
              key,
              requests: requests.length,
              windowMs: requests[0]?.windowMs ?? 0,
            };
          }),
        );
        for (const { key, hits, ttl } of counts) {
          const requests = byKey.get(key) ?? [];
          requests.forEach((request, index) =>
            request.settle(null, {
              current: hits - requests.length + index + 1,
              ttl,
            }),
          );
        }
      } catch (error) {
        for (const request of batch) request.settle(error as Error);
      }
    }
    this.#busy = false;
  }
}

/**
 * Deletes the windows that have ended, which no request will read again,
 * in batches (server/db/batchedWrites.ts).
 *
 * @param options.batchRows rows per statement (default 10,000)
 * @returns how many it deleted
 * @throws DatabaseUnavailableError when the database fails
 */
export function deleteEndedWindows(
  db: Kysely<RateLimitTables>,
  options: BatchOptions = {},
): Promise<number> {
  return deleteInBatches(
    db,
    'rate_limit_windows',
    sql`window_ends_at < now()`,
    options,
  );
}

/**
 * The store class the plugin instantiates (`store` option), bound to a
 * database. A route with a limit of its own gets a child that prefixes its
 * keys with the route's method and path.
 */
export function databaseRateLimitStore(
  db: Kysely<RateLimitTables>,
): FastifyRateLimitStoreCtor {
  const counter = new RequestCounter(db);
  class DatabaseRateLimitStore implements FastifyRateLimitStore {
    constructor(
      _options?: unknown,
      private readonly prefix = '',
    ) {}

    incr(key: string, callback: IncrCallback, timeWindow: number): void {
      counter.count(this.prefix + key, timeWindow).then(
        (result) => callback(null, result),
        (error: Error) => callback(error),
      );
    }

    child(options: object): FastifyRateLimitStore {
      return new DatabaseRateLimitStore(undefined, routeOf(options));
    }
  }
  return DatabaseRateLimitStore;
}

async function rateLimits(app: FastifyInstance): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    store: databaseRateLimitStore(app.database.db),
  });
  app.housekeeping.add('ended rate-limit windows', () =>
    deleteEndedWindows(app.database.db),
  );
}

/**
 * `@fastify/rate-limit` for the routes that set a limit of their own,
 * counted in the database, so every instance on it shares one limit; its
 * ended windows deleted by housekeeping. Needs the database and
 * housekeeping plugins.
 */
export const rateLimitPlugin = fastifyPlugin(rateLimits, {
  name: 'rate limit',
  dependencies: ['database', 'housekeeping'],
});
