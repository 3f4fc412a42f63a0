/**
 * The field length limits (ADR-0044): name 200, e-mail 254 (RFC 5321
 * §4.5.3.1.3), site URL 2,048, counted in Unicode code points as
 * PostgreSQL's `char_length` counts them, and the one place the page's and
 * the API's rules take them from; the campaign rule's own 200, counted
 * alike.
 */
import { describe, expect, it } from 'vitest';
import {
  characterCount,
  FIELD_LIMITS,
  fitsFieldLimit,
  type LimitedField,
} from '../../common/fieldLimits';
import { CAMPAIGN_MAX_LENGTH } from '../../common/campaign';
import { NAME_MAX_LENGTH } from '../../server/signUp/signUpRules';

describe('FIELD_LIMITS', () => {
  it('holds the limits ADR-0044 sets, and cannot be changed at run time', () => {
    expect(FIELD_LIMITS).toEqual({ name: 200, email: 254, url: 2048 });
    expect(Object.isFrozen(FIELD_LIMITS)).toBe(true);
  });

  it('is where the API’s name rule takes its limit from; the campaign rule has its own', () => {
    expect(NAME_MAX_LENGTH).toBe(200);
    expect(CAMPAIGN_MAX_LENGTH).toBe(200);
  });
});

describe('characterCount: code points, as char_length counts', () => {
  it.each([
    ['', 0],
    ['Ada', 3],
    ['李小龍', 3],
    // One code point beyond U+FFFF: two UTF-16 code units.
    ['😀', 1],
    ['😀'.repeat(200), 200],
    // A letter and a combining accent are two code points, as in PostgreSQL.
    ['e\u0301', 2],
    // A family emoji: four people and three joiners.
    ['👨‍👩‍👧‍👦', 7],
  ])('%j has %i', (value, count) => {
    expect(characterCount(value)).toBe(count);
  });
});

describe('fitsFieldLimit at each limit', () => {
  it.each<[LimitedField, number]>([
    ['name', 200],
    ['email', 254],
    ['url', 2048],
  ])('%s: %i characters fit, one more does not', (field, limit) => {
    expect(fitsFieldLimit(field, 'x'.repeat(limit))).toBe(true);
    expect(fitsFieldLimit(field, 'x'.repeat(limit + 1))).toBe(false);
    expect(fitsFieldLimit(field, '😀'.repeat(limit))).toBe(true);
    expect(fitsFieldLimit(field, '😀'.repeat(limit + 1))).toBe(false);
    expect(fitsFieldLimit(field, '')).toBe(true);
  });
});
