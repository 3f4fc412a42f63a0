/**
 * Edges of the site-URL rule (docs/url-and-email-rules.md, "Site URL" and
 * "Host"; R5.4 to R5.7, ADR-0012 to ADR-0014) that the wider tables do not
 * reach: the order of the checks where two could answer, the A-label and Bidi
 * details of a host, and hosts long enough to break Punycode.
 */
import { describe, expect, it } from 'vitest';
import { checkAsciiHostName } from '../../common/asciiHost';
import { checkHostName } from '../../common/domainName';
import { checkSiteUrl as checkSiteUrlWith } from '../../common/validation';

// The site-URL rule as the API runs it: with the UTS #46 host rule
// (common/domainName.ts) that the page loads for an internationalised host.
const checkSiteUrl = (raw: string) => checkSiteUrlWith(raw, checkHostName);

/** U+088F, an Arabic letter Unicode 17.0 added: older engines know it not. */
const NEWER_LETTER = '\u088f';

describe('checkSiteUrl: which check answers first', () => {
  it.each([
    // Rules 3 and 7: no host between "//" and the path.
    ['//example.com', 'format'],
    ['/@example.com', 'format'],
    ['https:///example.com', 'format'],
    // Rule 10 (a backslash or "%" in the authority) before rule 11 (an IPv6
    // address in brackets): a parser would read "\" as "/".
    ['https://[::1]\\status', 'format'],
    ['[::1]%2f', 'format'],
  ])('%j is refused as %s', (url, problem) => {
    expect(checkSiteUrl(url)).toEqual({ ok: false, problem });
  });

  it.each(['https://[example.com]/', '[vigil]', 'https://[::1x]/'])(
    'something in brackets that is no IPv6 address, %j, has the format message',
    (url) => {
      expect(checkSiteUrl(url)).toEqual({ ok: false, problem: 'format' });
    },
  );
});

describe('checkHostName: labels', () => {
  it("judges a letter newer than an engine's Unicode by tr46's tables (ADR-0058)", () => {
    // UTS #46's table for Unicode 17.0 has U+088F valid; the browser test
    // (tests/browser/engines.test.ts) gives it the same verdict in engines
    // whose own tables are older.
    expect(checkHostName(`ب${NEWER_LETTER}ب.com`)).toMatchObject({
      ok: true,
    });
  });

  it('refuses a code point UTS #46 leaves unassigned', () => {
    expect(checkHostName('a\u{e0080}b.com')).toEqual({
      ok: false,
      problem: 'format',
    });
  });

  it.each([
    // UTS #46 §4.1 V4: a U-label must not pose as an A-label.
    ['a Unicode label that poses as an A-label', 'xn--bücher.de'],
    // RFC 5891 §5.4: "8d9b40h" decodes to U+281AF, which Punycode writes
    // "287k"; an A-label must be written the one way.
    ['an A-label not written as Punycode writes it', 'xn--8d9b40h.com'],
    // RFC 3492 §6.2: a "-" where a digit must be, and an overflow.
    ['an A-label that is no Punycode', 'xn---tda.de'],
    ['an A-label that overflows Punycode', 'xn--99999999999.de'],
  ])('refuses %s (%s)', (_, host) => {
    expect(checkHostName(host)).toEqual({ ok: false, problem: 'format' });
  });

  it.each([
    ['bücher.de', 'xn--bcher-kva.de'],
    ['xn--tda.de', 'xn--tda.de'],
    ['xn--287k.com', 'xn--287k.com'],
    // Nontransitional Processing, as the URL Standard's "domain to ASCII":
    // ß stays ß (not "ss"), with or without the final dot of the absolute
    // form (UTS #46 §4; docs/url-and-email-rules.md, the host rule's step 1).
    ['straße.de', 'xn--strae-oqa.de'],
    ['straße.de.', 'xn--strae-oqa.de'],
  ])('accepts %s as %s', (host, ascii) => {
    expect(checkHostName(host)).toEqual({ ok: true, ascii });
  });

  it.each([
    // RFC 5891 §4.2.3.1: a U-label neither starts nor ends with a hyphen,
    // typed as Unicode or decoded from an A-label whose own ends are letters.
    ['bücher-.de'],
    ['-bücher.de'],
    ['xn---bcher-4ya.de'],
    ['xn--bcher--3ya.de'],
  ])('refuses %s: its U-label has a hyphen at one end', (host) => {
    expect(checkHostName(host)).toEqual({ ok: false, problem: 'format' });
  });

  it.each([
    // The host rule's step 2: localhost in any form keeps its own message,
    // even when UTS #46's strict reading refuses the name for another fault
    // (an underscore, which UseSTD3ASCIIRules refuses).
    ['ｆｏｏ_bar.localhost'],
    ['ｆｏｏ_bar.localhost.'],
  ])('refuses %s as localhost, not as a format fault', (host) => {
    expect(checkHostName(host)).toEqual({ ok: false, problem: 'local' });
  });

  it('refuses a Unicode label far too long for Punycode without throwing (RFC 3492 §6.4)', () => {
    // 20,000 "ü" then U+3134A: the jump to the last code point overflows
    // Punycode's delta.
    const label = `${'ü'.repeat(20_000)}\u{3134a}`;
    expect(checkHostName(`${label}.com`)).toEqual({
      ok: false,
      problem: 'format',
    });
  });
});

describe('checkHostName: a label is 63 octets at most in its ASCII form (RFC 1035 §2.3.4)', () => {
  it('accepts 57 "ü", whose A-label has 63 octets', () => {
    const label = 'ü'.repeat(57);
    expect(checkHostName(`${label}.com`)).toEqual({
      ok: true,
      ascii: `xn--tda${'a'.repeat(56)}.com`,
    });
  });

  it('refuses 58 "ü", whose A-label has 64', () => {
    expect(checkHostName(`${'ü'.repeat(58)}.com`)).toEqual({
      ok: false,
      problem: 'format',
    });
  });
});

describe('checkHostName: the Bidi Rule (RFC 5893)', () => {
  it('accepts a hyphen inside a right-to-left label', () => {
    expect(checkHostName('مثال-اختبار.com')).toEqual({
      ok: true,
      ascii: 'xn----ymcbaeld1a4a7pi.com',
    });
  });
});

describe('checkHostName: joiners where IDNA allows them (RFC 5892 Appendix A)', () => {
  it.each([
    // A.1 and A.2: after a virama, either joiner (Devanagari क् + ष).
    ['a non-joiner after a virama', 'क्\u200cष.com'],
    ['a joiner after a virama', 'क्\u200dष.com'],
    // A.1: a non-joiner between a dual-joining letter (ه) and a
    // right-joining one (ا), as in Persian.
    ['a non-joiner between joining letters', 'ه\u200cا.com'],
  ])('accepts %s (%s)', (_, host) => {
    expect(checkHostName(host)).toMatchObject({ ok: true });
  });

  it.each([
    ['a joiner starting a label', '\u200dexample.com'],
    ['a joiner between Latin letters', 'exa\u200dmple.com'],
    ['a non-joiner between Latin letters', 'exa\u200cmple.com'],
    // Right-joining ا cannot start the joined pair.
    ['a non-joiner after a right-joining letter', 'ا\u200cه.com'],
    ['an A-label of a lone joiner (WPT: xn--1ug)', 'xn--1ug.example'],
    ['an A-label of "a\u200db"', 'xn--ab-m1t.com'],
  ])('refuses %s (%s) as invisible', (_, host) => {
    expect(checkHostName(host)).toEqual({ ok: false, problem: 'invisible' });
  });

  // Rule 8 leaves a joiner in the host to the host rule wherever it stands,
  // the host's last character too (A.2: a joiner after a Sinhala virama
  // ending the top-level label), with or without a port.
  it.each([
    'example.ශ්\u200d',
    'https://example.ශ්\u200d/',
    'example.ශ්\u200d:443',
  ])(
    'accepts the site URL %j, whose host ends with a joiner after a virama',
    (url) => {
      expect(checkSiteUrl(url)).toMatchObject({ ok: true });
    },
  );

  it('refuses a joiner in context in a label UTS #46 refuses for another reason as format', () => {
    // "_" is no letter, digit or hyphen (UseSTD3ASCIIRules).
    expect(checkHostName('क्\u200dष_.com')).toEqual({
      ok: false,
      problem: 'format',
    });
  });
});

describe('checkAsciiHostName: the ASCII half of the host rule', () => {
  it.each(['bücher.de', 'xn--bcher-kva.de', 'example.XN--P1AI'])(
    'refuses to judge %j, which only the UTS #46 rule may (ADR-0058)',
    (host) => {
      expect(() => checkAsciiHostName(host)).toThrow(
        'an internationalised host needs the UTS #46 rule',
      );
    },
  );
});
