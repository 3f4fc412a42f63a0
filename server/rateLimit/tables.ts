/**
 * The rate limit's table as Kysely sees it (./migrations/ makes it).
 */
import type { Timestamp } from '../db/columns';

/** One fixed window of the sign-up rate limit per client key (ADR-0039). */
export interface RateLimitWindowsTable {
  key: string;
  hits: number;
  window_ends_at: Timestamp;
}

/** The tables this feature owns, by name. */
export interface RateLimitTables {
  rate_limit_windows: RateLimitWindowsTable;
}
