/**
 * The migrations of the consent records's tables, by name. Their numbers are one
 * sequence across the service's features (server/schema.ts merges them),
 * and Kysely runs them in the order of their names: a new one takes the
 * next number after the highest of any feature.
 */
import type { Migration } from 'kysely/migration';
import * as m0005ConsentRecords from './0005_consent_records';

/** Name → migration. */
export const CONSENT_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0005_consent_records': m0005ConsentRecords,
};
