/**
 * The local API's length limits (ADR-0044, docs/contract.md "The local API's
 * answers"): a name over 200 characters, an e-mail address over 254, a URL
 * over 2,048 are refused with `CSAPI_INVALID_PARAMETER` naming the field;
 * characters are code points, counted after trimming; a campaign over 200
 * is ignored and the sign-up accepted (ADR-0010).
 */
import { describe, expect, it } from 'vitest';
import { readSignUp } from '../../server/signUp/signUpRules';

const valid = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  'g-recaptcha-response': 'token',
  newsletter: '1',
  url: 'https://example.com',
};

/** A valid address of `length` characters. */
const emailOf = (length: number) =>
  `${'a'.repeat(length - '@example.com'.length)}@example.com`;

/** A valid URL with its protocol, of `length` characters of `unit`. */
const urlOf = (length: number, unit = 'p') =>
  `https://example.com/${unit.repeat(length - 'https://example.com/'.length)}`;

const refusal = (info: string) => ({
  success: false,
  code: 'CSAPI_INVALID_PARAMETER',
  info,
});

describe('readSignUp at each field’s limit (ADR-0044)', () => {
  it.each<[string, string, string]>([
    ['a name of 200 characters', 'name', 'x'.repeat(200)],
    ['a name of 200 astral characters', 'name', '😀'.repeat(200)],
    ['a name of 200 characters between spaces', 'name', ` ${'x'.repeat(200)} `],
    ['an e-mail address of 254 characters', 'email', emailOf(254)],
    [
      'an e-mail address of 254 characters between spaces',
      'email',
      `  ${emailOf(254)} `,
    ],
    ['a URL of 2,048 characters', 'url', urlOf(2048)],
    ['a URL of 2,048 astral characters', 'url', urlOf(2048, '😀')],
    ['a URL of 2,048 characters between spaces', 'url', ` ${urlOf(2048)}\t`],
  ])('accepts %s', (_case, field, value) => {
    const account = readSignUp({ ...valid, [field]: value });
    expect(account).toEqual(expect.objectContaining({ [field]: value.trim() }));
    expect(account).not.toHaveProperty('success');
  });

  it.each<[string, string, string]>([
    ['a name of 201 characters', 'name', 'x'.repeat(201)],
    ['a name of 201 astral characters', 'name', '😀'.repeat(201)],
    ['an e-mail address of 255 characters', 'email', emailOf(255)],
    ['a URL of 2,049 characters', 'url', urlOf(2049)],
    ['a URL of 2,049 astral characters', 'url', urlOf(2049, '😀')],
  ])('refuses %s, naming the field', (_case, field, value) => {
    expect(readSignUp({ ...valid, [field]: value })).toEqual(refusal(field));
  });

  it.each([
    ['201 characters', 'c'.repeat(201)],
    ['201 astral characters', '😀'.repeat(201)],
  ])(
    'ignores a campaign of %s and accepts the sign-up (ADR-0010)',
    (_case, utm_campaign) => {
      expect(readSignUp({ ...valid, utm_campaign })).toEqual(
        expect.objectContaining({
          name: 'Ada Lovelace',
          utmCampaign: undefined,
        }),
      );
    },
  );

  it('keeps a campaign of 200 astral characters', () => {
    expect(readSignUp({ ...valid, utm_campaign: '😀'.repeat(200) })).toEqual(
      expect.objectContaining({ utmCampaign: '😀'.repeat(200) }),
    );
  });
});
