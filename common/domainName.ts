/**
 * The host half of the site-URL rule (docs/url-and-email-rules.md, "Host"):
 * whether a host name as typed is a domain name with a top-level domain,
 * decided by this module alone. It never asks the runtime's URL parser, whose
 * IDNA (UTS #46) handling differs between Node's and each browser's, so the
 * page in every engine and the local API give one verdict.
 *
 * Where the parsers could differ, the rule refuses: it accepts only letters,
 * combining marks and digits (the characters IDNA2008, RFC 5892, allows),
 * ASCII hyphens inside a label, and the four label dots of RFC 3490 §3.1,
 * judged by Unicode 15.0's tables (common/unicodeBaseline.ts).
 */
import { decode, encode } from 'punycode/punycode.es6.js';
import { NEWER_THAN_UNICODE_15 } from './unicodeBaseline';

/** Why a host is refused; `format` covers everything but IP and localhost. */
export type HostProblem = 'format' | 'ip' | 'local';

export type HostCheck =
  { ok: true; ascii: string } | { ok: false; problem: HostProblem };

// RFC 3490 §3.1: the full stop and its ideographic, full-width and half-width
// forms separate labels (NFKC has already made U+FF0E a "." and U+FF61 a
// U+3002).
const IDEOGRAPHIC_FULL_STOP = /\u3002/g;
// The WHATWG URL parser reads a host whose labels are all numbers (decimal,
// octal with a leading 0, hexadecimal with 0x) as an IPv4 address: 127.1,
// 2130706433, 0x7f.0.0.1, 0177.0.0.1.
const IPV4_PART = /^(?:0x[\da-f]*|\d+)$/;
const ASCII_LABEL = /^[a-z\d-]+$/;
const LDH_LABEL = /^[a-z\d](?:[a-z\d-]*[a-z\d])?$/;
// IDNA2008 (RFC 5892) PVALID is, in the main, letters, marks and digits.
const LABEL_CHARACTER = /^[\p{L}\p{M}\p{Nd}-]$/u;
const MARK = /^\p{M}/u;
const LETTERS_ONLY = /^[\p{L}\p{M}]+$/u;
const ASCII_TLD = /^[a-z]{2,63}$/;

// RFC 5893 (the Bidi Rule, which UTS #46 applies with CheckBidi) on the only
// characters a label can hold here: letters and digits of the right-to-left
// blocks are R or AL, the Arabic-Indic digits AN, ASCII and extended
// Arabic-Indic digits EN, "-" ES, non-spacing and enclosing marks NSM, bar
// the few exceptions below, and everything else L. Checked against the
// Bidi_Class of every letter, mark and digit of Unicode 15.0 (ICU 72).
const RTL_BLOCK =
  /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
const ARABIC_NUMBER = /[\u0660-\u0669\u{10d30}-\u{10d39}]/u;
const EUROPEAN_NUMBER = /[\d\u06f0-\u06f9]/;
const NON_SPACING_MARK = /[\p{Mn}\p{Me}]/u;
// Modifier letters that are Other Neutral (ʹ, ˆ, ˈ, ꜗ…), and non-spacing
// marks that are Left-to-right (two Kannada vowel signs, three Zanabazar
// Square and Bhaiksuki signs).
const NEUTRAL_LETTER =
  /[\u02b9\u02ba\u02c6-\u02cf\u02ec\u2e2f\ua67f\ua717-\ua71f\ua788]/;
const LEFT_TO_RIGHT_MARK = /[\u0cbf\u0cc6\u{11a07}\u{11a08}\u{11c3f}]/u;

type BidiClass = 'R' | 'AN' | 'EN' | 'ES' | 'NSM' | 'ON' | 'L';

// The rule below compares only R, AN, EN, NSM and L: ES and ON are named
// for the reader, and any other name would read the same (docs/mutation.md).
function bidiClass(char: string): BidiClass {
  if (char === '-') {
    // Stryker disable next-line StringLiteral: only R, AN, EN, NSM and L are compared
    return 'ES';
  }
  if (ARABIC_NUMBER.test(char)) return 'AN';
  if (EUROPEAN_NUMBER.test(char)) return 'EN';
  // Stryker disable next-line StringLiteral: only R, AN, EN, NSM and L are compared
  if (NEUTRAL_LETTER.test(char)) return 'ON';
  if (LEFT_TO_RIGHT_MARK.test(char)) return 'L';
  if (NON_SPACING_MARK.test(char)) return 'NSM';
  return RTL_BLOCK.test(char) ? 'R' : 'L';
}

/**
 * RFC 5893 §2, conditions 1–6, for the labels of a domain name that has a
 * right-to-left label (one holding an R, AL or AN character).
 */
function followsBidiRule(labels: readonly string[]): boolean {
  const classes = labels.map((label) => [...label].map(bidiClass));
  const isRtl = (cs: BidiClass[]) => cs.some((c) => c === 'R' || c === 'AN');
  if (!classes.some(isRtl)) return true;
  return classes.every((cs) => {
    const rtl = isRtl(cs);
    const last = cs.filter((c) => c !== 'NSM').pop();
    if (rtl) {
      return (
        cs[0] === 'R' &&
        cs.every((c) => c !== 'L') &&
        (last === 'R' || last === 'EN' || last === 'AN') &&
        !(cs.includes('EN') && cs.includes('AN'))
      );
    }
    // Condition 5 (no R, AL or AN) holds already: that is what makes the
    // label left-to-right here.
    return cs[0] === 'L' && (last === 'L' || last === 'EN');
  });
}

/** A label of Unicode letters, marks, digits and inner hyphens (a U-label). */
function isUnicodeLabel(label: string): boolean {
  return (
    [...label].every((char) => LABEL_CHARACTER.test(char)) &&
    !MARK.test(label) &&
    !label.startsWith('-') &&
    !label.endsWith('-') &&
    // UTS #46 §4.1 V4: a U-label must not pose as an A-label.
    !label.startsWith('xn--')
  );
}

/** NFKC, lower case, NFKC again (lower-casing İ leaves a combining dot). */
function mapHost(host: string): string {
  return host
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFKC')
    .replace(IDEOGRAPHIC_FULL_STOP, '.');
}

/**
 * One label, mapped: its Unicode form (for the Bidi Rule and the TLD) and
 * its ASCII form (for the lengths), or undefined when it is no label of a
 * domain name.
 */
function readLabel(
  label: string,
): { unicode: string; ascii: string } | undefined {
  if (label === '') return undefined;
  if (ASCII_LABEL.test(label)) {
    // RFC 1035 §2.3.4; checked before any Punycode work on a pasted essay.
    // Stryker disable next-line ConditionalExpression: a shortcut; checkHostName's length test refuses a longer label all the same
    if (label.length > 63) return undefined;
    if (!label.startsWith('xn--')) {
      return LDH_LABEL.test(label)
        ? { unicode: label, ascii: label }
        : undefined;
    }
    // An A-label must be the Punycode (RFC 3492) of a U-label this rule
    // accepts, written the one way Punycode writes it (RFC 5891 §5.4).
    let unicode: string;
    try {
      // Stryker disable BlockStatement: the catch's block only (to the restore below); left undefined, `unicode` fails the non-ASCII test all the same
      unicode = decode(label.slice(4));
    } catch {
      return undefined;
    }
    // Stryker restore BlockStatement
    const valid =
      /[^\0-\x7f]/.test(unicode) &&
      mapHost(unicode) === unicode &&
      !NEWER_THAN_UNICODE_15.test(unicode) &&
      isUnicodeLabel(unicode) &&
      `xn--${encode(unicode)}` === label;
    return valid ? { unicode, ascii: label } : undefined;
  }
  // Every code point takes at least one octet of the A-label after "xn--",
  // so a longer label cannot fit in 63; and Punycode would overflow on a
  // long enough one (RFC 3492 §6.4).
  // Stryker disable next-line EqualityOperator: 59 cannot fit either: an A-label is 6 octets longer at least ("xn--", 3 digits for the first code point)
  if (!isUnicodeLabel(label) || [...label].length > 59) return undefined;
  return { unicode: label, ascii: `xn--${encode(label)}` };
}

/**
 * Checks a host as typed (without port, brackets or user info): a domain
 * name of at least two labels, each 1–63 octets in its ASCII form and the
 * whole at most 253 (RFC 1035 §2.3.4, a trailing dot aside), of letters,
 * digits and inner hyphens (RFC 1123 §2.1) or an internationalised label
 * (RFC 5890) following the Bidi Rule (RFC 5893); the top-level domain
 * alphabetic (RFC 3696 §2) or an internationalised label of letters; not an
 * IPv4 address in any notation; not `localhost` nor a name under it.
 *
 * The host is read as a browser reads it, NFKC-normalised and lower-cased
 * (UTS #46 §4 maps the same way), with `。` as a dot. The caller has already
 * refused invisible characters and compatibility forms of URL punctuation.
 *
 * @param host the host as typed, e.g. `Bücher.de`, `xn--bcher-kva.de.`
 * @returns `{ ok: true, ascii }` with the ASCII (punycode) form, lower case,
 *   without a trailing dot; or `{ ok: false, problem }`
 */
export function checkHostName(host: string): HostCheck {
  if (NEWER_THAN_UNICODE_15.test(host)) return { ok: false, problem: 'format' };
  const mapped = mapHost(host);
  const name = mapped.endsWith('.') ? mapped.slice(0, -1) : mapped;
  const parts = name.split('.');
  if (parts.length <= 4 && parts.every((part) => IPV4_PART.test(part))) {
    return { ok: false, problem: 'ip' };
  }
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return { ok: false, problem: 'local' };
  }
  const labels = parts.map(readLabel);
  const read = labels.filter((label) => label !== undefined);
  // Stryker disable next-line StringLiteral: with no label read, the length tests below refuse the host whatever the TLD
  const tld = read[read.length - 1]?.unicode ?? '';
  const ascii = read.map((label) => label.ascii).join('.');
  const valid =
    read.length === labels.length &&
    read.length >= 2 &&
    read.every((label) => label.ascii.length <= 63) &&
    ascii.length <= 253 &&
    (ASCII_TLD.test(tld) ||
      (/[^\0-\x7f]/.test(tld) && LETTERS_ONLY.test(tld))) &&
    followsBidiRule(read.map((label) => label.unicode));
  return valid ? { ok: true, ascii } : { ok: false, problem: 'format' };
}
