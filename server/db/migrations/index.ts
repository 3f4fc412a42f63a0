/**
 * The schema's migrations, in order, and the Kysely migrator that runs them
 * when the service starts. Forward only: no migration has a `down`, and a
 * change to the schema is a new file here. Kysely's migrator holds a
 * PostgreSQL advisory lock while it runs, so instances that start together
 * apply each migration once, one after the other.
 */
import type { Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import * as accounts from './0001_accounts';
import * as sessions from './0002_sessions';
import * as rateLimit from './0003_rate_limit';
import * as rateLimitUnlogged from './0004_rate_limit_unlogged';
import * as consentRecords from './0005_consent_records';
import * as expiryIndexes from './0006_expiry_indexes';
import * as addressConfirmation from './0007_address_confirmation';
import * as mailOutbox from './0008_mail_outbox';
import * as linkTokens from './0009_link_tokens';
import * as siteMonitor from './0010_site_monitor';
import * as provenSessions from './0011_proven_sessions';
import * as watchOnceConfirmed from './0012_watch_once_confirmed';
import * as outboxRetention from './0013_outbox_retention';
import * as alertsOff from './0014_alerts_off';
import * as flapping from './0015_flapping';
import * as reasonCodes from './0016_reason_codes';
import * as sites from './0017_sites';

/** Name → migration; Kysely runs them in the order of their names. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_accounts': accounts,
  '0002_sessions': sessions,
  '0003_rate_limit': rateLimit,
  '0004_rate_limit_unlogged': rateLimitUnlogged,
  '0005_consent_records': consentRecords,
  '0006_expiry_indexes': expiryIndexes,
  '0007_address_confirmation': addressConfirmation,
  '0008_mail_outbox': mailOutbox,
  '0009_link_tokens': linkTokens,
  '0010_site_monitor': siteMonitor,
  '0011_proven_sessions': provenSessions,
  '0012_watch_once_confirmed': watchOnceConfirmed,
  '0013_outbox_retention': outboxRetention,
  '0014_alerts_off': alertsOff,
  '0015_flapping': flapping,
  '0016_reason_codes': reasonCodes,
  '0017_sites': sites,
};

/**
 * Brings the database up to the latest migration.
 *
 * @returns the names of the migrations this call applied (none when
 *   another instance, or an earlier start, already had)
 * @throws the migration's error when one fails; nothing of that migration
 *   stays (each runs in a transaction)
 */
export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve({ ...MIGRATIONS }) },
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw error;
  return results
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}
