/**
 * The API's rules (server/signUp/signUpRules.ts) on bodies no form sends: values
 * of other types, inherited keys, names with control characters. Before
 * they were hardened, a number or null in `url` or the captcha token threw
 * (a 500) when such a body reached them.
 */
import { describe, expect, it } from 'vitest';
import { nameProblem, readSignUp } from '../../server/signUp/signUpRules';

const valid = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  'g-recaptcha-response': 'token',
  newsletter: '1',
  url: 'https://example.com',
  utm_campaign: 'spring',
};

describe('readSignUp on values of other types', () => {
  const fields = (Object.keys(valid) as (keyof typeof valid)[]).filter(
    (field) => field !== 'utm_campaign',
  );
  const odd: [string, unknown][] = [
    ['a number', 5],
    ['null', null],
    ['a boolean', true],
    ['an object', { toString: () => 'Ada' }],
    ['an array of one', ['Ada']],
  ];
  for (const field of fields) {
    it.each(odd)(`refuses ${field} as %s, without throwing`, (_case, value) => {
      expect(readSignUp({ ...valid, [field]: value })).toEqual({
        success: false,
        code: 'CSAPI_INVALID_PARAMETER',
        info: field,
      });
    });
  }
});

describe('readSignUp on a campaign of another type', () => {
  // The campaign rule ignores what it does not keep; a campaign never
  // blocks a sign-up.
  it.each([5, null, true, { toString: () => 'spring' }, ['spring']])(
    'ignores %j and accepts the sign-up',
    (value) => {
      expect(readSignUp({ ...valid, utm_campaign: value })).toEqual(
        expect.objectContaining({
          name: 'Ada Lovelace',
          utmCampaign: undefined,
        }),
      );
    },
  );
});

describe('readSignUp reads own fields only', () => {
  it('does not take a field from the prototype', () => {
    const body = Object.assign(
      Object.create({ name: 'Inherited' }) as Record<string, unknown>,
      { ...valid, name: undefined },
    );
    delete body.name;
    expect(readSignUp(body)).toEqual(expect.objectContaining({ info: 'name' }));
  });

  it('accepts a body without a prototype', () => {
    const body = Object.assign(
      Object.create(null) as Record<string, unknown>,
      valid,
    );
    expect(readSignUp(body)).toEqual(
      expect.objectContaining({ name: 'Ada Lovelace' }),
    );
  });
});

describe('nameProblem and control characters', () => {
  it.each([
    'Ada\u0000',
    'Ada\tLovelace',
    'Ada\u0007',
    'Ada\u007f',
    'Ada\u0085',
    'Ada\u009b31m',
    '\u202eecalevoL adA',
    'Ada \u2066x\u2069',
  ])('refuses %j', (name) => {
    expect(nameProblem(name)).toBe('contains control characters');
  });

  it.each([
    'مهسا\u200cنوری', // Persian with a zero-width non-joiner
    'Ada 👩\u200d💻', // an emoji ZWJ sequence
    'Zoë O’Brien',
  ])('accepts %j', (name) => {
    expect(nameProblem(name)).toBeUndefined();
  });
});
