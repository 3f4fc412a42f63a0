/**
 * The textual formats the contract's values take: a UUID (a sign-up's sid,
 * a browser's consent id) and a policy revision. Patterns only, so that a
 * module of the page's first load can import one without the rest.
 */

/**
 * A UUID's textual form (RFC 9562 §4): 32 hexadecimal digits in groups of
 * 8-4-4-4-12, in any case. A sign-up's sid and a browser's consent id are
 * UUIDs.
 */
export const UUID_PATTERN =
  /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;

/**
 * A revision as text: a positive decimal integer without leading zeros or
 * sign, at most 10 digits (so 1 to 2³¹−1 fit; larger ones are refused by
 * contract/consentRecord.ts `CONSENT_REVISION_MAX` where a revision is stored).
 */
export const REVISION_PATTERN = /^[1-9]\d{0,9}$/;
