/**
 * The internationalised half of the host rule (docs/url-and-email-rules.md,
 * "Host"): a host with a non-ASCII character or an `xn--` label, judged by
 * UTS #46 as the URL Standard's "domain to ASCII" runs it, from the `tr46`
 * package (the implementation whatwg-url, the standard's reference parser,
 * is built on). The page and the sign-up API pin the same `tr46`, so its
 * Unicode data, not the engine's, decides (ADR-0058). The
 * page loads this module as a chunk of its own, only when such a host
 * appears (src/signUp/hostRuleChunk.ts); the API imports it directly.
 */
import { toASCII, toUnicode } from 'tr46';
import {
  checkAsciiHostName,
  checkAsciiName,
  needsIdnRule,
  type HostCheck,
} from './asciiHost';

// UTS #46 §4 with the URL Standard's strict options ("domain to ASCII" with
// beStrict): no Transitional Processing, the Bidi Rule (RFC 5893) and the
// joiner rules (RFC 5892 Appendix A) checked, STD3 ASCII rules (letters,
// digits, hyphens), DNS lengths verified. Hyphens at a label's ends are
// refused below, on both the A-label and the U-label, and "--" in the third
// and fourth places is allowed as in an ASCII host.
const STRICT = {
  checkBidi: true,
  checkJoiners: true,
  checkHyphens: false,
  useSTD3ASCIIRules: true,
  transitionalProcessing: false,
  verifyDNSLength: true,
} as const;
// Zero-width joiner and non-joiner: valid only in the contexts of RFC 5892
// Appendix A.1 and A.2 (CONTEXTJ), which UTS #46's CheckJoiners applies.
const JOINER = /[\u200c\u200d]/;
// The label dots of RFC 3490 §3.1 once NFKC has made U+FF0E a "." and U+FF61
// a U+3002.
const LABEL_DOT = /[.\u3002]/;

/**
 * The A-labels as typed (`xn--…`, lower case): each must be written the one
 * way Punycode writes its U-label (RFC 5891 §5.4), which UTS #46 does not
 * check, as it re-encodes what it decodes.
 */
function typedALabels(host: string): string[] {
  return host
    .normalize('NFKC')
    .toLowerCase()
    .split(LABEL_DOT)
    .filter((label) => label.startsWith('xn--'));
}

/**
 * Checks a host as typed (without port, brackets or user info): mapped by
 * UTS #46 (case, width and compatibility forms, `。` as a dot), it must not
 * be an IPv4 address in any notation nor `localhost` or a name under it,
 * and must be a domain name of two or more labels whose A-labels UTS #46
 * accepts (valid Punycode, RFC 3492; valid code points; the Bidi Rule, RFC
 * 5893; no label starting with a mark) and whose labels have no hyphen at
 * either end, each 1–63 octets in ASCII and the whole at most 253 (RFC 1035
 * §2.3.4, a trailing dot aside); the top-level domain alphabetic (RFC 3696
 * §2) or an A-label. An ASCII host without `xn--` labels is judged by
 * common/asciiHost.ts alone.
 *
 * A zero-width joiner or non-joiner, typed or in the U-label of an A-label,
 * is allowed where RFC 5892 Appendix A.1 and A.2 (CONTEXTJ) allow it: after
 * a virama, or a non-joiner between the joining types A.1 names (Persian
 * `نامه‌ای.com`, Sinhala `ශ්‍රී.com`). Anywhere else it makes the problem
 * `invisible`, before any other, as the caller's check of every other
 * invisible character comes first (docs/url-and-email-rules.md, rule 8).
 * The caller has already refused the other invisible characters and
 * compatibility forms of URL punctuation.
 *
 * @param host the host as typed, e.g. `Bücher.de`, `xn--bcher-kva.de.`
 * @returns `{ ok: true, ascii }` with the ASCII (Punycode) form, lower case,
 *   without a trailing dot; or `{ ok: false, problem }`: `invisible`,
 *   `ip`, `local` or `format`
 */
export function checkHostName(host: string): HostCheck {
  if (!needsIdnRule(host)) return checkAsciiHostName(host);
  if (hasJoinerOutOfContext(host)) return { ok: false, problem: 'invisible' };
  // verifyDNSLength refuses the empty label after the trailing dot of the
  // absolute form (RFC 1034 §3.1): such a host is read again without it.
  const checked = toASCII(host, STRICT) ?? readWithoutTrailingDot(host);
  if (typeof checked !== 'string') return checked;
  const labels = checked.split('.');
  if (!typedALabels(host).every((label) => labels.includes(label))) {
    return { ok: false, problem: 'format' };
  }
  const unicode = checked.includes('xn--') ? toUnicode(checked).domain : '';
  const unicodeLabelsOk = unicode
    .split('.')
    .every((label) => !label.startsWith('-') && !label.endsWith('-'));
  if (!unicodeLabelsOk) return { ok: false, problem: 'format' };
  return checkAsciiName(checked);
}

/**
 * A host UTS #46 refused with the strict options, or that ends with a dot:
 * mapped as a browser's parser maps it (no strict options), an IP address
 * or localhost in other forms has its own problem; else it is read again
 * without the trailing dot.
 *
 * @returns the strict ASCII form, or the host's verdict
 */
function readWithoutTrailingDot(host: string): string | HostCheck {
  const mapped = toASCII(host, { transitionalProcessing: false });
  if (mapped === null) return { ok: false, problem: 'format' };
  const name = mapped.endsWith('.') ? mapped.slice(0, -1) : mapped;
  const loose = checkAsciiName(name);
  if (!loose.ok && loose.problem !== 'format') return loose;
  return toASCII(name, STRICT) ?? { ok: false, problem: 'format' };
}

/**
 * Whether a label of the host holds a zero-width joiner or non-joiner that
 * UTS #46's CheckJoiners refuses (RFC 5892 Appendix A.1 and A.2), judged
 * label by label on the labels UTS #46 maps and decodes (an A-label's
 * U-label included), so that a label's other problems, or another label's,
 * do not hide it. A label that UTS #46 refuses even without CheckJoiners
 * (a disallowed code point, a leading mark) is left to the strict reading
 * of {@link checkHostName}, which refuses it as `format`.
 *
 * @param host the host as typed, e.g. `exa\u200dmple.com`
 */
function hasJoinerOutOfContext(host: string): boolean {
  return toUnicode(host)
    .domain.split('.')
    .some(
      (label) =>
        JOINER.test(label) &&
        !toUnicode(label).error &&
        toUnicode(label, { checkJoiners: true }).error,
    );
}
