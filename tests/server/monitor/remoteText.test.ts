/**
 * Text a remote site controls, cleaned before it is stored, shown or
 * mailed (server/monitor/check/remoteText.ts, issue 58): the characters
 * Unicode and PostgreSQL make dangerous are gone, the rest kept as sent,
 * and no string is longer than 200 code points.
 */
import { describe, expect, it } from 'vitest';
import {
  cleanRemoteText,
  REMOTE_TEXT_MAX,
} from '../../../server/monitor/check/remoteText';

describe('cleanRemoteText', () => {
  it.each([
    ['a NUL (PostgreSQL refuses it in jsonb)', 'Evil\u0000 CA', 'Evil CA'],
    [
      'C0 controls: a line break, a tab, ESC',
      'Evil\r\nBcc: x\t\u001b[2J',
      'EvilBcc: x[2J',
    ],
    ['DEL and C1 controls', 'A\u007fB\u0085C\u009bD', 'ABCD'],
    [
      'bidirectional overrides and isolates (Trojan Source)',
      'Good\u202eAC live\u202c\u2066x\u2069\u200f\u061c',
      'GoodAC livex',
    ],
    ['a lone high surrogate', 'a\ud83db', 'ab'],
    ['a lone low surrogate', 'a\ude00b', 'ab'],
    [
      'the first and last character of every range it removes',
      'a\u0000\u001f\u007f\u009f\u061c\u200e\u200f\u202a\u202e\u2066\u2069\ud800-\udfffb',
      // Apart: together, U+D800 U+DFFF are a pair (U+103FF), kept.
      'a-b',
    ],
  ])('removes %s', (_what, text, cleaned) => {
    expect(cleanRemoteText(text)).toBe(cleaned);
  });

  it.each([
    ["Let's Encrypt"],
    ['DigiCert Inc'],
    ['Société Générale — Autorité de Certification'],
    ['中国金融认证中心'],
    ['مركز التصديق'],
    ['Emoji 😀 CA'],
    // The neighbours of every removed range, the joiner of emoji sequences
    // (U+200D) among them.
    [
      'a \u007e\u00a0\u061b\u061d\u200d\u2010\u2029\u202f\u2065\u206a\ud7ff\ue000b',
    ],
  ])('keeps %j as it was sent', (text) => {
    expect(cleanRemoteText(text)).toBe(text);
  });

  it('trims the spaces a removed control leaves at either end', () => {
    expect(cleanRemoteText('\u202e Evil CA \u0000\n')).toBe('Evil CA');
    expect(cleanRemoteText('  ')).toBe('');
  });

  it(`keeps at most ${REMOTE_TEXT_MAX} code points, ending a cut text with …`, () => {
    expect(cleanRemoteText('x'.repeat(REMOTE_TEXT_MAX))).toBe(
      'x'.repeat(REMOTE_TEXT_MAX),
    );
    const cut = cleanRemoteText('😀'.repeat(REMOTE_TEXT_MAX + 1));
    expect(Array.from(cut)).toHaveLength(REMOTE_TEXT_MAX);
    expect(cut).toBe(`${'😀'.repeat(REMOTE_TEXT_MAX - 1)}…`);
    // No pair was split: no lone surrogate is left.
    expect(/[\ud800-\udfff]/u.test(cut)).toBe(false);
  });
});
