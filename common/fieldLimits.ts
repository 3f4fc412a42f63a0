/**
 * The most characters each sign-up field may hold (ADR-0044),
 * in one place for everything that enforces them: the
 * page's rules (common/validation.ts), the local API's
 * (server/signUp/signUpRules.ts) and the database's CHECK constraints. The
 * campaign's limit is the campaign rule's own (common/campaign.ts): a
 * longer campaign is ignored, never refused (ADR-0010).
 *
 * A character is a Unicode code point, `[...value].length`: what
 * PostgreSQL's `char_length` counts in a UTF-8 database, so page, API and
 * database agree on every value. Not UTF-16 code units (`value.length`),
 * which count an emoji or any other character beyond U+FFFF as two.
 */

/**
 * - `email`: 254. RFC 5321 §4.5.3.1.3 caps a path at 256 octets, and a
 *   path is the address between `<` and `>`; the address rule
 *   (common/validation.ts `isValidEmail`) admits ASCII only, so its
 *   characters are its octets.
 * - `name`, `url`: the product's decision (ADR-0044). 200 for a name is far
 *   beyond any real one and still a short column; 2,048 for a site URL,
 *   counted as it is sent (trimmed, with the `https://` the page adds),
 *   fits any address a visitor would monitor.
 */
export const FIELD_LIMITS = Object.freeze({
  name: 200,
  email: 254,
  url: 2048,
} as const);

/** A field that has a limit in {@link FIELD_LIMITS}. */
export type LimitedField = keyof typeof FIELD_LIMITS;

/**
 * How many characters `value` has, as PostgreSQL's `char_length` counts
 * them: Unicode code points (an astral character such as `😀` is one).
 */
export function characterCount(value: string): number {
  return [...value].length;
}

/**
 * Whether `value`, as it is stored (the caller trims it first, or adds the
 * URL's protocol), fits the field's limit in {@link FIELD_LIMITS}.
 */
export function fitsFieldLimit(field: LimitedField, value: string): boolean {
  return characterCount(value) <= FIELD_LIMITS[field];
}
