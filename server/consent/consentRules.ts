/**
 * The rules of `POST /2/consent/` (docs/contract.md; ADR-0065).
 * Pure: reads one form body into a record, and
 * truncates the client's address to its network, so the service never
 * stores a full IP address (GDPR Art. 5(1)(c), data minimisation).
 */
import {
  CONSENT_PATH_MAX_LENGTH,
  CONSENT_RECORD_FIELDS,
  CONSENT_REVISION_MAX,
  CONSENT_SOURCES,
  type ConsentRecordRequest,
  type ConsentSource,
} from '../../contract/consentRecord';
import { decodeChoice } from '../../contract/consentChoice';
import { REVISION_PATTERN } from '../../contract/formats';
import { type SignUpAnswer } from '../../contract/signUp';
import { API_CODES } from '../../contract/apiCodes';
import { UUID_PATTERN } from '../../contract/formats';
import { refusal } from '../http/errorAnswer';
import type { UntrustedBody } from '../http/formBody';

/** The most characters (code points) of a stored `User-Agent`. */
export const USER_AGENT_MAX_LENGTH = 512;

// Control characters (C0, DEL, C1): a path from `location.pathname` has
// none (the URL standard percent-encodes them).
const CONTROL = /\p{Cc}/u;

const KNOWN_FIELDS: ReadonlySet<string> = new Set(
  Object.values(CONSENT_RECORD_FIELDS),
);

/**
 * Checks a consent record's body.
 *
 * @param body the parsed form body; every field is required once, as a
 *   plain string, and no other field may be sent
 * @returns the record to store, its path cut at the first `?` or `#`, or
 *   the refusal to answer with 400: `CSAPI_INVALID_PARAMETER` with `body`
 *   for a field the record does not have (a name or an e-mail address
 *   among them: they are never stored), else with the first field that is
 *   missing, repeated or invalid (`consent_id` not a UUID; `choice` not
 *   `1`/`0`; `revision` not an integer from 1 to 2³¹−1; `source` not
 *   `modal`, `settings` or `gpc`, or `gpc` with an accept, which a privacy
 *   signal cannot give; `path` not starting with `/`, over 2,048
 *   characters or holding control characters)
 */
export function readConsentRecord(
  body: UntrustedBody,
): ConsentRecordRequest | SignUpAnswer {
  if (Object.keys(body).some((key) => !KNOWN_FIELDS.has(key))) {
    return refusal(API_CODES.invalidParameter, 'body');
  }
  const single = (key: string): string | undefined => {
    const value = Object.hasOwn(body, key) ? body[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  const invalid = (field: string) => refusal(API_CODES.invalidParameter, field);

  const consentId = single(CONSENT_RECORD_FIELDS.consentId);
  if (consentId === undefined || !UUID_PATTERN.test(consentId)) {
    return invalid(CONSENT_RECORD_FIELDS.consentId);
  }
  const choice = decodeChoice(single(CONSENT_RECORD_FIELDS.choice));
  if (choice === undefined) {
    return invalid(CONSENT_RECORD_FIELDS.choice);
  }
  const revision = single(CONSENT_RECORD_FIELDS.revision);
  if (
    revision === undefined ||
    !REVISION_PATTERN.test(revision) ||
    Number(revision) > CONSENT_REVISION_MAX
  ) {
    return invalid(CONSENT_RECORD_FIELDS.revision);
  }
  const source = single(CONSENT_RECORD_FIELDS.source);
  if (
    !CONSENT_SOURCES.includes(source as ConsentSource) ||
    (source === 'gpc' && choice === 'accepted')
  ) {
    return invalid(CONSENT_RECORD_FIELDS.source);
  }
  const path = single(CONSENT_RECORD_FIELDS.path)?.split(/[?#]/, 1)[0];
  if (
    path === undefined ||
    !path.startsWith('/') ||
    [...path].length > CONSENT_PATH_MAX_LENGTH ||
    CONTROL.test(path)
  ) {
    return invalid(CONSENT_RECORD_FIELDS.path);
  }
  return {
    consentId: consentId.toLowerCase(),
    choice,
    revision: Number(revision),
    source: source as ConsentSource,
    path,
  };
}

/**
 * The `User-Agent` as stored: its first {@link USER_AGENT_MAX_LENGTH} code
 * points; undefined when the request has none.
 */
export function storedUserAgent(
  header: string | undefined,
): string | undefined {
  if (header === undefined || header === '') return undefined;
  return [...header].slice(0, USER_AGENT_MAX_LENGTH).join('');
}
