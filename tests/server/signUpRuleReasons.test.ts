/**
 * The local API's sign-up rules (ADR-0038 to ADR-0040) in detail: each refused
 * name says why, and a field present with no value counts as absent.
 */
import { describe, expect, it } from 'vitest';
import { nameProblem, readSignUp } from '../../server/signUp/signUpRules';

describe('nameProblem: why a name is refused (ADR-0038)', () => {
  it.each([
    ['   ', 'empty'],
    ['A'.repeat(201), 'too long'],
    ['Visit https://spam.example', 'contains a URL'],
    ['Ada <b>Lovelace</b>', 'contains markup'],
    ['Ada\u202eLovelace', 'contains control characters'],
  ])('%j: %s', (name, reason) => {
    expect(nameProblem(name)).toBe(reason);
  });
});

describe('readSignUp: absent fields', () => {
  it('takes a field present without a value as absent, as if it were not sent', () => {
    const body = {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      'g-recaptcha-response': 'token',
      newsletter: '0',
      url: undefined,
      utm_campaign: undefined,
    };
    expect(readSignUp(body)).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      newsletter: false,
      url: undefined,
      utmCampaign: undefined,
      captchaToken: 'token',
    });
  });
});
