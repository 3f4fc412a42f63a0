/**
 * The service's schema: every feature's tables, as Kysely sees them, and
 * every feature's migrations, in one sequence. Each feature owns its
 * tables and their migrations (ADR-0128); this file, beside the composition
 * root (./app.ts), only merges them. The database layer (./db/) names no
 * feature's table: it is typed by this schema where the service opens it.
 */
import { ACCOUNTS_MIGRATIONS, type AccountsTables } from './accounts/index';
import { ALERTS_MIGRATIONS, type AlertsTables } from './alerts/index';
import { CONSENT_MIGRATIONS, type ConsentTables } from './consent/index';
import {
  openDatabase,
  type Database,
  type DatabaseLog,
  type DatabaseSettings,
} from './db/database';
import type { Migrations } from './db/migrate';
import { MONITOR_MIGRATIONS, type MonitorTables } from './monitor/index';
import { OUTBOX_MIGRATIONS, type OutboxTables } from './outbox/index';
import { RATE_LIMIT_MIGRATIONS, type RateLimitTables } from './rateLimit/index';

/** Every table of the service, by name. */
export type Schema = AccountsTables &
  RateLimitTables &
  ConsentTables &
  MonitorTables &
  OutboxTables &
  AlertsTables;

/**
 * Every feature's migrations, by name, in the order Kysely runs them (of
 * their names; the numbers are one sequence across the features).
 *
 * @throws Error at load when two features name a migration alike
 */
export const MIGRATIONS: Migrations = Object.fromEntries(
  [
    ACCOUNTS_MIGRATIONS,
    RATE_LIMIT_MIGRATIONS,
    CONSENT_MIGRATIONS,
    MONITOR_MIGRATIONS,
    OUTBOX_MIGRATIONS,
    ALERTS_MIGRATIONS,
  ]
    .flatMap((migrations) => Object.entries(migrations))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, migration], index, all) => {
      if (all[index - 1]?.[0] === name) {
        throw new Error(`Two features have a migration named ${name}`);
      }
      return [name, migration] as const;
    }),
);

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's open database (server/db/database.ts). */
    database: Database<Schema>;
  }
}

/**
 * Opens the service's database and brings it up to its latest migration
 * (server/db/database.ts's openDatabase, with {@link MIGRATIONS}).
 *
 * @param settings the embedded directory or the server's URL
 * @param log receives what an operator should know (default: nothing)
 * @param startupWaitMs how long to wait for a PostgreSQL server (ms)
 * @returns the open database, typed by {@link Schema}
 * @throws as openDatabase throws
 */
export function openServiceDatabase(
  settings: DatabaseSettings,
  log: DatabaseLog = () => {},
  startupWaitMs?: number,
): Promise<Database<Schema>> {
  return openDatabase<Schema>(settings, log, {
    migrations: MIGRATIONS,
    startupWaitMs,
  });
}
