/**
 * The rules of `POST /2/consent/` (docs/contract.md; D65 in
 * docs/decisions.md). Pure: reads one form body into a record, and
 * truncates the client's address to its network, so the service never
 * stores a full IP address (GDPR Art. 5(1)(c), data minimisation).
 */
import { isIPv4, isIPv6 } from 'node:net';
import {
  CONSENT_PATH_MAX_LENGTH,
  CONSENT_RECORD_FIELDS,
  CONSENT_REVISION_MAX,
  CONSENT_SOURCES,
  type ConsentRecordRequest,
  type ConsentSource,
} from '../common/consentRecord';
import { SIGN_UP_CODES, type SignUpAnswer } from '../machines/signUpContract';
import { refusal, type UntrustedBody } from './signUpRules';

/** The most characters (code points) of a stored `User-Agent`. */
export const USER_AGENT_MAX_LENGTH = 512;

/** A consent id: a UUID, RFC 9562 §4, 32 hexadecimal digits in groups of 8-4-4-4-12. */
export const CONSENT_ID =
  /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;
// A positive decimal integer without leading zeros or sign.
const REVISION = /^[1-9]\d{0,9}$/;
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
    return refusal(SIGN_UP_CODES.invalidParameter, 'body');
  }
  const single = (key: string): string | undefined => {
    const value = Object.hasOwn(body, key) ? body[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  const invalid = (field: string) =>
    refusal(SIGN_UP_CODES.invalidParameter, field);

  const consentId = single(CONSENT_RECORD_FIELDS.consentId);
  if (consentId === undefined || !CONSENT_ID.test(consentId)) {
    return invalid(CONSENT_RECORD_FIELDS.consentId);
  }
  const choice = single(CONSENT_RECORD_FIELDS.choice);
  if (choice !== '1' && choice !== '0') {
    return invalid(CONSENT_RECORD_FIELDS.choice);
  }
  const revision = single(CONSENT_RECORD_FIELDS.revision);
  if (
    revision === undefined ||
    !REVISION.test(revision) ||
    Number(revision) > CONSENT_REVISION_MAX
  ) {
    return invalid(CONSENT_RECORD_FIELDS.revision);
  }
  const source = single(CONSENT_RECORD_FIELDS.source);
  if (
    !CONSENT_SOURCES.includes(source as ConsentSource) ||
    (source === 'gpc' && choice === '1')
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
    choice: choice === '1' ? 'accepted' : 'rejected',
    revision: Number(revision),
    source: source as ConsentSource,
    path,
  };
}

/** The eight 16-bit groups of an IPv6 address (RFC 4291 §2.2). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    // The last 32 bits written as IPv4 (RFC 4291 §2.2, form 3).
    const [a, b, c, d] = dotted.slice(1).map(Number) as [
      number,
      number,
      number,
      number,
    ];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => parseInt(group, 16));
  const first = parse(head);
  if (tail === undefined) return first;
  const last = parse(tail);
  return [
    ...first,
    ...Array<number>(8 - first.length - last.length).fill(0),
    ...last,
  ];
}

/**
 * The network a client address belongs to, the part stored with a consent
 * record (D65): IPv4 truncated to /24, IPv6 to /48 (the prefix a site is
 * assigned, RFC 6177), an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`,
 * RFC 4291 §2.5.5.2) as the IPv4 address it is.
 *
 * @param address an IPv4 or IPv6 address, as Fastify's `request.ip` gives
 *   it (an IPv6 zone, `%eth0`, is ignored)
 * @returns CIDR notation with the host bits zero, IPv6 as RFC 5952 writes
 *   it (`2001:db8:1::/48`); undefined when `address` is not an IP address
 */
export function networkOf(address: string): string | undefined {
  const bare = address.split('%', 1)[0] ?? '';
  if (isIPv4(bare)) {
    return `${bare.split('.').slice(0, 3).join('.')}.0/24`;
  }
  if (!isIPv6(bare)) return undefined;
  const groups = ipv6Groups(bare);
  if (
    groups.slice(0, 5).every((group) => group === 0) &&
    groups[5] === 0xffff
  ) {
    const [high = 0, low = 0] = groups.slice(6);
    return `${high >> 8}.${high & 0xff}.${low >> 8}.0/24`;
  }
  const kept = groups.slice(0, 3);
  while (kept.length > 0 && kept.at(-1) === 0) kept.pop();
  return `${kept.map((group) => group.toString(16)).join(':')}::/48`;
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
