/**
 * The migrations of the rate limit's tables, by name. Their numbers are one
 * sequence across the service's features (server/schema.ts merges them),
 * and Kysely runs them in the order of their names: a new one takes the
 * next number after the highest of any feature.
 */
import type { Migration } from 'kysely/migration';
import * as m0003RateLimit from './0003_rate_limit';
import * as m0004RateLimitUnlogged from './0004_rate_limit_unlogged';

/** Name → migration. */
export const RATE_LIMIT_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0003_rate_limit': m0003RateLimit,
  '0004_rate_limit_unlogged': m0004RateLimitUnlogged,
};
