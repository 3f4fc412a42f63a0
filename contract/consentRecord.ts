/**
 * The proof-of-consent contract (docs/contract.md, "`POST /2/consent/`";
 * GDPR Art. 7(1): the controller must be able to demonstrate consent): what
 * the page sends when a visitor makes a choice, and what the service
 * stores. One module for the page, which sends records, and the service
 * (server/consent/consentApi.ts), which checks and stores them. It imports
 * only the rest of contract/.
 */
import { encodeChoice, type ConsentRecordChoice } from './consentChoice';

export type { ConsentRecordChoice } from './consentChoice';

/** Where the page sends a consent record, on its own origin (ADR-0087). */
export const CONSENT_RECORD_PATH = '/2/consent/';

/** The form-encoded fields of a record, and nothing else is accepted. */
export const CONSENT_RECORD_FIELDS = {
  consentId: 'consent_id',
  choice: 'choice',
  revision: 'revision',
  source: 'source',
  path: 'path',
} as const;

/**
 * Where a choice was made: the modal that opened by itself, the modal the
 * settings link opened, or the browser's Global Privacy Control signal.
 */
export const CONSENT_SOURCES = ['modal', 'settings', 'gpc'] as const;

/** One of {@link CONSENT_SOURCES}. */
export type ConsentSource = (typeof CONSENT_SOURCES)[number];

/** The most characters (code points) of a record's page path. */
export const CONSENT_PATH_MAX_LENGTH = 2048;

/** The largest revision: PostgreSQL's `integer`. */
export const CONSENT_REVISION_MAX = 2_147_483_647;

/** A record as the page sends it. */
export interface ConsentRecordRequest {
  /** The random UUID of `{product}_CONSENT_ID` (crypto.randomUUID). */
  consentId: string;
  choice: ConsentRecordChoice;
  /** `CONSENT_REVISION` the choice was made under: an integer ≥ 1. */
  revision: number;
  source: ConsentSource;
  /** The page's path (`location.pathname`), without query or fragment. */
  path: string;
}

/**
 * The request body of a record: `choice` is sent as `1` or `0`, like the
 * consent cookie.
 *
 * @returns the form fields, in the order of {@link CONSENT_RECORD_FIELDS}
 */
export function consentRecordBody(
  record: ConsentRecordRequest,
): URLSearchParams {
  return new URLSearchParams([
    [CONSENT_RECORD_FIELDS.consentId, record.consentId],
    [CONSENT_RECORD_FIELDS.choice, encodeChoice(record.choice)],
    [CONSENT_RECORD_FIELDS.revision, String(record.revision)],
    [CONSENT_RECORD_FIELDS.source, record.source],
    [CONSENT_RECORD_FIELDS.path, record.path],
  ]);
}
