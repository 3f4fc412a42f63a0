/**
 * The proof-of-consent contract (docs/contract.md, "`POST /2/consent/`";
 * GDPR Art. 7(1): the controller must be able to demonstrate consent): what
 * the page sends when a visitor makes a choice, and what the service
 * stores. One module for the page, which sends records, and the service
 * (server/consent/consentApi.ts), which checks and stores them. It imports nothing.
 */

/** Where the page sends a consent record, on its own origin (D87). */
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

/** The choice as stored: the consent cookie's `1` and `0`, spelt out. */
export type ConsentRecordChoice = 'accepted' | 'rejected';

/**
 * The one codec of a choice (R3.10): `{product}_COOKIE_CONSENT` and a
 * record's `choice` field both write `1` for accepted and `0` for
 * rejected.
 */
export const CONSENT_CHOICE_CODES = {
  accepted: '1',
  rejected: '0',
} as const satisfies Record<ConsentRecordChoice, string>;

/** @returns the code of a choice, `1` or `0` (R3.10) */
export function encodeChoice(
  choice: ConsentRecordChoice,
): (typeof CONSENT_CHOICE_CODES)[ConsentRecordChoice] {
  return CONSENT_CHOICE_CODES[choice];
}

/**
 * @param code a cookie's or a field's value
 * @returns the choice `1` or `0` stands for (R3.10); undefined for any
 *   other value, which is no choice
 */
export function decodeChoice(
  code: string | undefined,
): ConsentRecordChoice | undefined {
  return code === CONSENT_CHOICE_CODES.accepted
    ? 'accepted'
    : code === CONSENT_CHOICE_CODES.rejected
      ? 'rejected'
      : undefined;
}

/** The most characters (code points) of a record's page path. */
export const CONSENT_PATH_MAX_LENGTH = 2048;

/** The largest revision: PostgreSQL's `integer`. */
export const CONSENT_REVISION_MAX = 2_147_483_647;

/**
 * A revision as text: a positive decimal integer without leading zeros or
 * sign, at most 10 digits (so 1 to 2³¹−1 fit; larger ones are refused by
 * {@link CONSENT_REVISION_MAX} where a revision is stored).
 */
export const REVISION_PATTERN = /^[1-9]\d{0,9}$/;

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
