/**
 * The consent records (ADR-0065): appended by
 * `POST /2/consent/`, read by `npm run consent:export`. The repository has
 * no update: a record, once stored, is the proof; it is deleted only when
 * its retention ends (`CONSENT_RETENTION_DAYS`, ADR-0089).
 */
import { sql, type Kysely } from 'kysely';
import type { ConsentRecordRequest } from '../../contract/consentRecord';
import { deleteInBatches, type BatchOptions } from '../db/batchedWrites';
import { unlessUnavailable } from '../db/unavailable';
import type { ConsentRecordsTable, ConsentTables } from './tables';

/**
 * How long a record is kept by default, in days (`CONSENT_RETENTION_DAYS`,
 * ADR-0089): the year the consent cookie it proves may act, plus two for an
 * audit or a complaint about that year.
 */
export const DEFAULT_CONSENT_RETENTION_DAYS = 3 * 365;
/**
 * The shortest retention, in days: a record must outlive the consent
 * cookie it proves (365 days, R9.2).
 */
export const MIN_CONSENT_RETENTION_DAYS = 365;

/** What the service adds to the page's record from the request itself. */
export interface ConsentRequestContext {
  /** The client's network (server/http/clientNetwork.ts `networkOf`). */
  ipNetwork: string | undefined;
  /** The stored `User-Agent` (`storedUserAgent`). */
  userAgent: string | undefined;
}

/** A stored record, as the export prints it (one JSON object per line). */
export interface StoredConsentRecord {
  consent_id: string;
  /** The server's timestamp, ISO 8601 in UTC. */
  recorded_at: string;
  choice: ConsentRecordsTable['choice'];
  revision: number;
  source: ConsentRecordsTable['source'];
  path: string;
  user_agent: string | null;
  ip_network: string | null;
}

export interface ConsentRecordsRepository {
  /**
   * Appends one record, timestamped by the database's clock, committed
   * when the promise resolves.
   *
   * @throws DatabaseUnavailableError when the database fails
   */
  append(
    record: ConsentRecordRequest,
    context: ConsentRequestContext,
  ): Promise<void>;
  /**
   * One consent id's history, oldest first.
   *
   * @param consentId a UUID (any case)
   * @returns its records; none for an id never recorded
   * @throws DatabaseUnavailableError when the database fails
   */
  history(consentId: string): Promise<StoredConsentRecord[]>;
  /**
   * Deletes the records stored more than `retentionDays` days ago, by the
   * database's clock, in batches (server/db/batchedWrites.ts).
   *
   * @param retentionDays how long a record is kept, in days (≥ 1)
   * @param options.batchRows rows per statement (default 10,000)
   * @returns how many it deleted
   * @throws DatabaseUnavailableError when the database fails
   */
  deleteOlderThan(
    retentionDays: number,
    options?: BatchOptions,
  ): Promise<number>;
}

/** The repository over an open database (server/db/database.ts). */
export function consentRecordsRepository(
  db: Kysely<ConsentTables>,
): ConsentRecordsRepository {
  return {
    async append(record, context) {
      await unlessUnavailable(() =>
        db
          .insertInto('consent_records')
          .values({
            consent_id: record.consentId,
            choice: record.choice,
            revision: record.revision,
            source: record.source,
            path: record.path,
            user_agent: context.userAgent ?? null,
            ip_network: context.ipNetwork ?? null,
          })
          .execute(),
      );
    },
    async history(consentId) {
      const rows = await unlessUnavailable(() =>
        db
          .selectFrom('consent_records')
          .select([
            'consent_id',
            'recorded_at',
            'choice',
            'revision',
            'source',
            'path',
            'user_agent',
            'ip_network',
          ])
          .where('consent_id', '=', consentId.toLowerCase())
          .orderBy('id')
          .execute(),
      );
      return rows.map((row) => ({
        ...row,
        recorded_at: new Date(row.recorded_at).toISOString(),
      }));
    },
    deleteOlderThan(retentionDays, options) {
      return deleteInBatches(
        db,
        'consent_records',
        sql`recorded_at < now() - make_interval(days => ${retentionDays})`,
        options,
      );
    },
  };
}
