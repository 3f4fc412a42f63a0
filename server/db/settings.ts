/**
 * Where the database is, read from the environment (docs/contract.md,
 * "Configuration"): `DATABASE_URL` or `DATA_DIR`. Here, below every
 * feature, so that the commands that open the database
 * (`npm run consent:export`) read it as the service does.
 */
import { resolve } from 'node:path';
import type { DatabaseSettings } from './database';

/** Every variable the server reads; unset and empty mean "the default". */
export type ServerEnvironment = Partial<Record<string, string | undefined>>;

/** The embedded database's directory when `DATA_DIR` is unset. */
export const DEFAULT_DATA_DIR = 'data';

/**
 * A URL's scheme as WHATWG URL reads it (`postgres:`), or undefined when
 * the text is no URL: what the variables naming a server are checked by.
 */
export function protocolOf(url: string): string | undefined {
  try {
    return new URL(url).protocol;
  } catch {
    return undefined;
  }
}

/**
 * Where the accounts live: a PostgreSQL server when `DATABASE_URL` is set,
 * otherwise the embedded database in `DATA_DIR` (default `./data`,
 * relative to the working directory).
 *
 * @throws Error naming the variable when `DATABASE_URL` is not a
 *   `postgres://` or `postgresql://` URL
 */
export function databaseSettingsFrom(env: ServerEnvironment): DatabaseSettings {
  const url = env.DATABASE_URL?.trim();
  if (url) {
    const protocol = protocolOf(url);
    if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
      throw new Error(
        'DATABASE_URL must be a PostgreSQL URL like postgres://user:password@host:5432/vigil',
      );
    }
    return { engine: 'postgres', url };
  }
  return {
    engine: 'pglite',
    dataDir: resolve(env.DATA_DIR?.trim() || DEFAULT_DATA_DIR),
  };
}
