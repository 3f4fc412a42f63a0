/**
 * The consent choice on the wire and in the cookie: its one codec. Small,
 * so that the page's cookie jar (src/platform/cookies.ts) imports it without the
 * rest of the consent record's contract, which only the record's chunk
 * needs.
 */

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
