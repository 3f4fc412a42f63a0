/**
 * The counter behind `SIGNUP_RATE_LIMIT` (docs/contract.md
 * "Configuration"; D39, D47 in docs/decisions.md): a store for
 * @fastify/rate-limit that keeps its fixed windows in the database, so
 * every instance on one database counts against one limit.
 *
 * Each request is one atomic upsert whose `RETURNING` gives that request's
 * own count, so simultaneous requests, from one instance or several, see
 * 1, 2, 3… and exactly `max` of them pass (the plugin's own LocalStore
 * answered every increment with one shared object, which let simultaneous
 * requests all read the last count). The window is measured by the
 * database's clock, the same for every instance.
 */
import type {
  FastifyRateLimitStore,
  FastifyRateLimitStoreCtor,
} from '@fastify/rate-limit';
import { sql, type Kysely } from 'kysely';
import { DatabaseUnavailableError } from './database';
import type { Schema } from './schema';

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

/**
 * Counts one request for `key` in its window.
 *
 * @param windowMs the window's length, in milliseconds
 * @returns this request's count in the window and the milliseconds left
 *   of it
 * @throws DatabaseUnavailableError when the database fails
 */
export async function countRequest(
  db: Kysely<Schema>,
  key: string,
  windowMs: number,
): Promise<{ current: number; ttl: number }> {
  const expired = sql<boolean>`rate_limit_windows.window_ends_at <= now()`;
  try {
    const row = await db
      .insertInto('rate_limit_windows')
      .values({
        key,
        hits: 1,
        window_ends_at: sql<Date>`now() + make_interval(secs => ${windowMs / 1000})`,
      })
      .onConflict((conflict) =>
        conflict.column('key').doUpdateSet({
          hits: sql<number>`case when ${expired} then 1 else rate_limit_windows.hits + 1 end`,
          window_ends_at: sql<Date>`case when ${expired} then excluded.window_ends_at else rate_limit_windows.window_ends_at end`,
        }),
      )
      .returning([
        'hits',
        sql<number>`ceil(extract(epoch from window_ends_at - now()) * 1000)::integer`.as(
          'ttl',
        ),
      ])
      .executeTakeFirstOrThrow();
    return { current: row.hits, ttl: row.ttl };
  } catch (error) {
    throw new DatabaseUnavailableError(error);
  }
}

/**
 * Deletes the windows that have ended, which no request will read again.
 *
 * @returns how many it deleted
 * @throws DatabaseUnavailableError when the database fails
 */
export async function deleteEndedWindows(db: Kysely<Schema>): Promise<number> {
  try {
    const result = await db
      .deleteFrom('rate_limit_windows')
      .where('window_ends_at', '<', sql<Date>`now()`)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  } catch (error) {
    throw new DatabaseUnavailableError(error);
  }
}

/**
 * The store class the plugin instantiates (`store` option), bound to a
 * database. A route with a limit of its own gets a child that prefixes its
 * keys with the route's method and path.
 */
export function databaseRateLimitStore(
  db: Kysely<Schema>,
): FastifyRateLimitStoreCtor {
  class DatabaseRateLimitStore implements FastifyRateLimitStore {
    constructor(
      _options?: unknown,
      private readonly prefix = '',
    ) {}

    incr(key: string, callback: IncrCallback, timeWindow: number): void {
      countRequest(db, this.prefix + key, timeWindow).then(
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
