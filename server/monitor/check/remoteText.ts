/**
 * Text a remote site controls (a certificate's issuer, a redirect's host),
 * made safe to store, show and mail (issue 58). A site is anyone's: its
 * text may hold a NUL, which PostgreSQL refuses in `jsonb` and `text`
 * (one such certificate made the batched write of up to 200 other sites'
 * results fail), controls that rewrite a terminal or a mail header,
 * Unicode's bidirectional controls, which reorder what a page shows
 * (Trojan Source, CVE-2021-42574), or no end at all.
 */

/** The most characters (code points) kept of one remote string. */
export const REMOTE_TEXT_MAX = 200;

/**
 * C0 controls and DEL, C1 controls (U+0080 to U+009F), the bidirectional
 * controls (ALM U+061C, LRM and RLM U+200E and U+200F, the embeddings and
 * overrides U+202A to U+202E, the isolates U+2066 to U+2069), and lone
 * surrogates: with the `u` flag a well-formed pair (an emoji) is one code
 * point outside U+D800 to U+DFFF, and is kept whole.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/gu;

/**
 * @param text what the remote end sent
 * @param max the most code points kept (default {@link REMOTE_TEXT_MAX});
 *   a longer text is cut and ends with "…"
 * @returns the text without {@link UNSAFE} characters, trimmed, at most
 *   `max` code points long
 */
export function cleanRemoteText(text: string, max = REMOTE_TEXT_MAX): string {
  const kept = text.replace(UNSAFE, '').trim();
  const codePoints = Array.from(kept);
  return codePoints.length <= max
    ? kept
    : `${codePoints.slice(0, max - 1).join('')}…`;
}
