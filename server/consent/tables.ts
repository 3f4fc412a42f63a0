/**
 * The consent records' table as Kysely sees it (./migrations/ makes it).
 */
import type { ColumnType } from 'kysely';
import type { CreatedAt } from '../db/columns';
import type {
  ConsentRecordChoice,
  ConsentSource,
} from '../../contract/consentRecord';

/**
 * One choice a visitor made (ADR-0065): appended by `POST /2/consent/`, never
 * updated or deleted by the service.
 */
export interface ConsentRecordsTable {
  /** The order of appending (an identity column; a bigint, read as text). */
  id: ColumnType<string, never, never>;
  /** `{product}_CONSENT_ID` of the browser that chose. */
  consent_id: string;
  /** The database's clock when the record was stored. */
  recorded_at: CreatedAt;
  choice: ConsentRecordChoice;
  /** `CONSENT_REVISION` the choice was made under (≥ 1). */
  revision: number;
  source: ConsentSource;
  /** The page's path, without query or fragment; ≤ 2,048 characters. */
  path: string;
  /** The `User-Agent` header, its first 512 characters; null when none. */
  user_agent: string | null;
  /** The client's network: `203.0.113.0/24` or `2001:db8:1::/48`. */
  ip_network: string | null;
}

/** The tables this feature owns, by name. */
export interface ConsentTables {
  consent_records: ConsentRecordsTable;
}
