/**
 * The e-mail typo suggestion (src/signUp/emailSuggestion.ts, ADR-0054). The
 * expected pairs of the first block are the spell checker's own cases, from its
 * repository's test suite (ZooTools/email-spell-checker, test/index.spec.ts:
 * `run`, `parseEmail`, `findClosestDomain`) and its README, with the
 * library's default domains (the suite's custom lists are left out where
 * the defaults lack the domain); the second block is the example
 * and what ADR-0054 adds: the local part as typed, no suggestion for a known
 * domain in any case, and no exception for any text.
 */
import { describe, expect, it } from 'vitest';
import { suggestEmail } from '../../src/signUp/emailSuggestion';

describe("suggestEmail: the spell checker's own cases", () => {
  it.each([
    // run: "calls the 'suggested' callback … when there's a suggestion"
    ['test@gmail.co', 'test@gmail.com'],
    // README, "Basic Example"
    ['jorge@gmaik.co', 'jorge@gmail.com'],
    // run: "validates common emails"
    ['test@gmal.com', 'test@gmail.com'],
    ['test@yaho.com', 'test@yahoo.com'],
    ['test@zopo.com', 'test@zoho.com'],
    // findClosestDomain: second-level domains of the default list
    ['test@hotmial.com', 'test@hotmail.com'],
    ['test@outllok.com', 'test@outlook.com'],
  ])('%s → %s', (typed, expected) => {
    expect(suggestEmail(typed)).toBe(expected);
  });

  it.each([
    // run: "calls the 'empty' callback … when there's no suggestion"
    'contact@kicksend.com',
    // run: "… when email is empty"
    '',
    // parseEmail: "returns false for email addresses that are not RFC compliant"
    'example.com',
    'abc.example.com',
    '@example.com',
    'test@',
  ])('nothing for %j', (typed) => {
    expect(suggestEmail(typed)).toBeUndefined();
  });
});

describe('suggestEmail: what the page adds (ADR-0054)', () => {
  it("suggests the issue's example", () => {
    expect(suggestEmail('ada@gmial.com')).toBe('ada@gmail.com');
  });

  it('keeps the local part exactly as typed, and trims the address', () => {
    expect(suggestEmail('Ada.Lovelace+vigil@gmial.com')).toBe(
      'Ada.Lovelace+vigil@gmail.com',
    );
    expect(suggestEmail('  ada@gmial.com\t')).toBe('ada@gmail.com');
  });

  it('suggests nothing for a known domain, whatever its case', () => {
    expect(suggestEmail('ada@gmail.com')).toBeUndefined();
    expect(suggestEmail('Ada@GMAIL.COM')).toBeUndefined();
    expect(suggestEmail('ada@yahoo.com')).toBeUndefined();
  });

  it('never throws, and suggests no encoded text', () => {
    expect(suggestEmail('ada@\uD800mail.com')).toBeUndefined();
    expect(suggestEmail('ada@gmäil.com')).toBeUndefined();
    expect(suggestEmail('@')).toBeUndefined();
  });
});
