/**
 * The e-mail typo suggestion (issue 22; ADR-0054): a likely
 * misspelling of a common mail domain (`ada@gmial.com`) gets the address
 * with that domain (`ada@gmail.com`). The page loads this module, and the
 * spell checker with it, as a chunk of its own after the first paint
 * (src/signUp/views/formHelp.tsx): it is never in the initial JavaScript.
 *
 * The domains, the distance (Sift3) and its thresholds are
 * `@zootools/email-spell-checker`'s defaults (a maintained rewrite of
 * mailcheck.js).
 */
import { run } from '@zootools/email-spell-checker';

/** A domain the suggestion may offer: ASCII letters, digits, dots, hyphens. */
const PLAIN_DOMAIN = /^[a-z0-9.-]+$/;

/**
 * @param typed the e-mail field's value as typed (it may be anything:
 *   blank, no `@`, surrounding spaces)
 * @returns the address to suggest: what was typed, trimmed, with its part
 *   after the last `@` replaced by the likely domain in lower case; the
 *   local part is kept exactly as typed (RFC 5321 §2.4: it may be case
 *   sensitive). Undefined when the spell checker has nothing to suggest,
 *   when the domain is a known one already (in any case), when nothing
 *   precedes or follows the `@`, or when the domain is not plain ASCII
 *   (the checker percent-encodes such text, so no sound suggestion can be
 *   made). Never throws.
 */
export function suggestEmail(typed: string): string | undefined {
  const email = typed.trim();
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1) return undefined;
  const domain = email.slice(at + 1);
  let suggested: string | undefined;
  try {
    // The local part is not the checker's business: a plain stand-in keeps
    // its encoding and lower-casing away from what the visitor typed.
    suggested = run({ email: `x@${domain}` })?.domain;
  } catch {
    // encodeURI throws on a lone surrogate: no suggestion for such text.
    return undefined;
  }
  if (
    suggested === undefined ||
    !PLAIN_DOMAIN.test(suggested) ||
    suggested === domain.toLowerCase()
  ) {
    return undefined;
  }
  return `${email.slice(0, at)}@${suggested}`;
}
