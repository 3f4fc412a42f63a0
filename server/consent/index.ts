/**
 * The consent records (ADR-0065, ADR-0068): `POST /2/consent/`
 * appends the proof of a visitor's choice, and housekeeping deletes the
 * records past their retention (ADR-0089). A Fastify plugin; the rest of the
 * service reaches consent through this file only. `npm run consent:export`
 * is ./consentExport.ts, an entry of its own.
 */
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { registerConsentApi } from './consentApi';
import {
  consentRecordsRepository,
  DEFAULT_CONSENT_RETENTION_DAYS,
} from './consentRecords';

export {
  DEFAULT_CONSENT_RETENTION_DAYS,
  MIN_CONSENT_RETENTION_DAYS,
} from './consentRecords';
export { CONSENT_MIGRATIONS } from './migrations/index';
export type { ConsentTables } from './tables';

/** What the plugin needs of the service. */
export interface ConsentPluginOptions {
  /** Records accepted per client address per 15 minutes (default 30). */
  rateLimit?: number | undefined;
  /**
   * Days a record is kept (`CONSENT_RETENTION_DAYS`; default
   * {@link DEFAULT_CONSENT_RETENTION_DAYS}).
   */
  retentionDays?: number | undefined;
}

async function consent(
  app: FastifyInstance,
  options: ConsentPluginOptions,
): Promise<void> {
  const records = consentRecordsRepository(app.database.db);
  await registerConsentApi(app, {
    records,
    ...(options.rateLimit && { rateLimit: options.rateLimit }),
  });
  const retentionDays = options.retentionDays ?? DEFAULT_CONSENT_RETENTION_DAYS;
  app.housekeeping.add('consent records past their retention', () =>
    records.deleteOlderThan(retentionDays),
  );
}

/**
 * Registers the consent records on the service. Needs the database,
 * housekeeping and the rate limit.
 */
export const consentPlugin = fastifyPlugin(consent, {
  name: 'consent',
  dependencies: ['database', 'housekeeping', 'rate limit'],
});
