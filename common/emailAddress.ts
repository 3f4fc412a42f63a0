/**
 * The e-mail rule (R5.2 in docs/requirements.md, ADR-0015,
 * docs/url-and-email-rules.md "E-mail"): one function the form's rules
 * (common/validation.ts), the address prefill (src/signUp/prefill.ts) and the
 * sign-up API (server/signUp/signUpRules.ts) share. It imports nothing, so the
 * page's first load can carry it without the rest of the rules (ADR-0071).
 */

// HTML Living Standard, 4.10.5.1.5 "E-mail state": a valid e-mail address.
const HTML_EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/**
 * Whether `raw`, trimmed, is a valid e-mail address as the HTML standard
 * defines it (what `<input type=email>` accepts) with at least one dot in
 * the domain (ADR-0015: `name@localhost` cannot receive
 * our mail).
 */
export function isValidEmail(raw: string): boolean {
  const email = raw.trim();
  return (
    HTML_EMAIL.test(email) && email.slice(email.indexOf('@')).includes('.')
  );
}
