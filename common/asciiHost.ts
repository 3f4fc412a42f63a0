/**
 * The host half of the site-URL rule that needs no Unicode data
 * (docs/url-and-email-rules.md, "Host"): an ASCII host is decided here, at
 * once, with the rest of the form's rules (the page's submit chunk, ADR-0071);
 * a host with a non-ASCII character or an
 * `xn--` label (an internationalised one, RFC 5890) needs UTS #46, which
 * `common/domainName.ts` runs with `tr46` and the page loads only when such
 * a host appears (ADR-0058).
 */

/**
 * Why the host rule refuses a host: `invisible` is a zero-width joiner or
 * non-joiner outside the contexts IDNA allows it in; `format` covers
 * everything but that, IP addresses and localhost.
 */
export type HostProblem = 'format' | 'ip' | 'local' | 'invisible';

/** A host's verdict: its ASCII form, lower case, without a trailing dot. */
export type HostCheck =
  { ok: true; ascii: string } | { ok: false; problem: HostProblem };

/**
 * A host rule: the host as typed (without port, brackets or user info) →
 * its verdict. The UTS #46 one (common/domainName.ts) is a chunk the page
 * fetches when a host needs it (ADR-0058).
 */
export type HostRule = (host: string) => HostCheck;

// The WHATWG URL parser reads a host whose labels are all numbers (decimal,
// octal with a leading 0, hexadecimal with 0x) as an IPv4 address: 127.1,
// 2130706433, 0x7f.0.0.1, 0177.0.0.1.
const IPV4_PART = /^(?:0x[\da-f]*|\d+)$/;
// RFC 1123 §2.1: letters, digits and inner hyphens.
const LDH_LABEL = /^[a-z\d](?:[a-z\d-]*[a-z\d])?$/;
// RFC 3696 §2: an ASCII top-level domain is alphabetic.
const ASCII_TLD = /^[a-z]{2,63}$/;
const NON_ASCII = /[^\0-\x7f]/;
const A_LABEL = /(?:^|\.)xn--/i;

/**
 * Whether a host needs the UTS #46 rule (common/domainName.ts): it holds a
 * non-ASCII character, or a label starting with `xn--` (an A-label, which
 * must be decoded to be judged; RFC 5890 §2.3.2.1), in any case.
 *
 * @param host the host as typed, e.g. `bücher.de`, `XN--BCHER-KVA.DE`
 */
export function needsIdnRule(host: string): boolean {
  return NON_ASCII.test(host) || A_LABEL.test(host);
}

/**
 * The checks of a host in ASCII form (lower case, A-labels already checked
 * by UTS #46 when there are any): not an IPv4 address in any WHATWG
 * notation; not `localhost` nor a name under it; at least two labels of
 * letters, digits and inner hyphens (RFC 1123 §2.1), each 1–63 octets and
 * the whole at most 253, a trailing dot aside (RFC 1035 §2.3.4); the
 * top-level domain alphabetic (RFC 3696 §2) or an A-label.
 *
 * @param ascii the host in ASCII, lower case, e.g. `xn--bcher-kva.de.`
 * @returns `{ ok: true, ascii }` without the trailing dot, or the problem
 */
export function checkAsciiName(ascii: string): HostCheck {
  const name = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  const labels = name.split('.');
  if (labels.length <= 4 && labels.every((label) => IPV4_PART.test(label))) {
    return { ok: false, problem: 'ip' };
  }
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return { ok: false, problem: 'local' };
  }
  const tld = labels[labels.length - 1] ?? '';
  const valid =
    labels.length >= 2 &&
    name.length <= 253 &&
    labels.every((label) => label.length <= 63 && LDH_LABEL.test(label)) &&
    (ASCII_TLD.test(tld) || tld.startsWith('xn--'));
  return valid ? { ok: true, ascii: name } : { ok: false, problem: 'format' };
}

/**
 * Checks a host that {@link needsIdnRule} does not claim: ASCII, without
 * A-labels, read as a browser reads it (lower case), by
 * {@link checkAsciiName}.
 *
 * @param host the host as typed, e.g. `Example.COM.`
 * @throws Error when the host needs the UTS #46 rule instead
 */
export function checkAsciiHostName(host: string): HostCheck {
  if (needsIdnRule(host)) {
    throw new Error('an internationalised host needs the UTS #46 rule');
  }
  return checkAsciiName(host.toLowerCase());
}
