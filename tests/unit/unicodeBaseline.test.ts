/**
 * The Unicode baseline (common/unicodeBaseline.ts): the characters newer than
 * Unicode 15.0 that every rule refuses, so that engines with older and newer
 * Unicode tables give one verdict. Spot checks from the Unicode Standard's
 * release contents, and a tripwire for a runtime with newer tables than the
 * list knows.
 */
import { describe, expect, it } from 'vitest';
import {
  NEWER_THAN_UNICODE_15,
  UNICODE_BASELINE,
} from '../../common/unicodeBaseline';

const char = (codePoint: number) => String.fromCodePoint(codePoint);
/** [code point, what it is] → [U+ hex, what it is, code point] for titles. */
const titled = (rows: [number, string][]) =>
  rows.map(
    ([codePoint, what]) =>
      [
        codePoint.toString(16).toUpperCase().padStart(4, '0'),
        what,
        codePoint,
      ] as const,
  );

describe('NEWER_THAN_UNICODE_15', () => {
  it.each(
    titled([
      [0x2ffc, '15.1: an ideographic description character'],
      [0x31ef, '15.1: CJK stroke HXG'],
      [0x2ebf0, '15.1: CJK Unified Ideographs Extension I'],
      [0x1c89, '16.0: Cyrillic capital letter TJE'],
      [0xa7cb, '16.0: Latin capital letter ramshorn'],
      [0x10d40, '16.0: Garay'],
      [0x11380, '16.0: Tulu-Tigalari'],
      [0x13460, '16.0: Egyptian Hieroglyphs Extended-A'],
      [0x1cc00, '16.0: Symbols for Legacy Computing Supplement'],
      [0x1e5d0, '16.0: Ol Onal'],
      [0x20c1, '17.0: Saudi riyal sign'],
      [0x1171e, '16.0 moved this Ahom mark from Mn to Mc'],
    ]),
  )('holds U+%s (%s)', (_hex, _what, codePoint) => {
    expect(NEWER_THAN_UNICODE_15.test(char(codePoint))).toBe(true);
  });

  it.each(
    titled([
      [0x41, 'Latin A'],
      [0xe9, 'é'],
      [0x4e2d, 'CJK 中'],
      [0x0600, 'an Arabic number sign'],
      [0x0cf3, '15.0: Kannada sign combining anusvara above right'],
      [0x11f00, '15.0: Kawi'],
      [0x1e4d0, '15.0: Nag Mundari'],
      [0x31350, '15.0: CJK Unified Ideographs Extension H'],
      [0x1f6dc, '15.0: wireless'],
      [0x0295, 'a letter still, though 16.0 made it Lo'],
    ]),
  )('leaves U+%s (%s) out', (_hex, _what, codePoint) => {
    expect(NEWER_THAN_UNICODE_15.test(char(codePoint))).toBe(false);
  });

  it('knows every Unicode version this runtime does', () => {
    // A runtime with tables newer than 17.0 could accept what a 15.0 engine
    // refuses: add that version's new characters to the list, then raise
    // this bound.
    const [major = 0, minor = 0] = (process.versions.unicode ?? '0.0')
      .split('.')
      .map(Number);
    expect(major * 100 + minor, 'Unicode version').toBeLessThanOrEqual(1700);
    expect(UNICODE_BASELINE).toBe('15.0');
  });
});
