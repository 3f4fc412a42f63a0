/**
 * The API's reading of a sign-up body (server/signUp/signUpRules.ts): what it
 * accepts, normalised, and what it refuses, naming the field. A name is
 * refused exactly when `nameProblem` names a problem with it.
 */
import { describe, expect, it } from 'vitest';
import type { FormBody } from '../../server/http/formBody';
import { readSignUp } from '../../server/signUp/signUpRules';

const validBody: FormBody = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  'g-recaptcha-response': 'captcha-token',
  newsletter: '1',
};

/** The valid body with some fields changed (undefined: left out). */
function bodyWith(change: FormBody): FormBody {
  return Object.fromEntries(
    Object.entries({ ...validBody, ...change }).filter(
      ([, value]) => value !== undefined,
    ),
  );
}

const refusedNames = [
  '',
  '   ',
  '\t\n',
  // ADR-0044: over 200 characters (more in
  // tests/server/signUpRulesLimits.test.ts).
  '李'.repeat(201),
  'http://x.io',
  'Ada https://spam.example/offer',
  'www.spam.com',
  'buy cheap.com',
  'Visit CHEAP.COM now',
  'Ada spam.ru',
  '<b>Ada</b>',
  '<script>alert(1)</script>',
  'Ada <',
  'Ada &amp; Bob',
  'Ada &#60;',
];

const acceptedNames = [
  'Ada Lovelace',
  "Zoë O'Brien-Łukasz",
  '李小龍',
  'José Martínez',
  "Ngũgĩ wa Thiong'o",
  'Dr. Ada King',
  'J. R. R. Tolkien',
  'Mary-Jane St. Clair',
  'Ben & Jerry',
  'Ada',
  '  Ada  ',
  '李'.repeat(200),
];

describe('readSignUp', () => {
  it('accepts a valid body', () => {
    expect(readSignUp(validBody)).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      newsletter: true,
      url: undefined,
      utmCampaign: undefined,
      captchaToken: 'captcha-token',
    });
  });

  it('normalises the accepted fields', () => {
    expect(
      readSignUp(
        bodyWith({
          name: '  Zoë O’Brien ',
          email: ' zoe@example.com\t',
          newsletter: '0',
          url: 'https://example.com/status?x=1',
          utm_campaign: 'spring-sale',
        }),
      ),
    ).toEqual({
      name: 'Zoë O’Brien',
      email: 'zoe@example.com',
      newsletter: false,
      url: 'https://example.com/status?x=1',
      utmCampaign: 'spring-sale',
      captchaToken: 'captcha-token',
    });
  });

  // docs/url-and-email-rules.md, "Campaign": page and API apply one campaign
  // rule, and a campaign can never block a sign-up: what the rule does not keep
  // is ignored. The rule's own cases are keptCampaign's, in validation.test.ts.
  it.each<[string, FormBody['utm_campaign'], string | undefined]>([
    ['trims it', '  spring-sale  ', 'spring-sale'],
    ['keeps 200 characters', 'c'.repeat(200), 'c'.repeat(200)],
    ['ignores an empty one', '', undefined],
    ['ignores a control character', 'spring\u0000sale', undefined],
    ['ignores a repeated utm_campaign', ['a', 'b'], undefined],
  ])('%s and accepts the sign-up', (_case, utm_campaign, utmCampaign) => {
    expect(readSignUp(bodyWith({ utm_campaign }))).toEqual(
      expect.objectContaining({ name: 'Ada Lovelace', utmCampaign }),
    );
  });

  it.each(acceptedNames)('accepts the name %j', (name) => {
    expect(readSignUp(bodyWith({ name }))).toEqual(
      expect.objectContaining({ name: name.trim() }),
    );
  });

  it.each(refusedNames)('refuses the name %j', (name) => {
    expect(readSignUp(bodyWith({ name }))).toEqual({
      success: false,
      code: 'CSAPI_INVALID_PARAMETER',
      info: 'name',
    });
  });

  it.each<[string, FormBody, string]>([
    ['no name', { name: undefined }, 'name'],
    ['a repeated name', { name: ['Ada', 'Bob'] }, 'name'],
    ['no e-mail', { email: undefined }, 'email'],
    ['an empty e-mail', { email: '' }, 'email'],
    ['an invalid e-mail', { email: 'ada' }, 'email'],
    [
      'an e-mail without a dot in the domain',
      { email: 'ada@localhost' },
      'email',
    ],
    [
      'a repeated e-mail',
      { email: ['ada@example.com', 'bob@example.com'] },
      'email',
    ],
    [
      'a repeated captcha token',
      { 'g-recaptcha-response': ['a', 'b'] },
      'g-recaptcha-response',
    ],
    ['no newsletter', { newsletter: undefined }, 'newsletter'],
    ['a newsletter of true', { newsletter: 'true' }, 'newsletter'],
    ['an empty newsletter', { newsletter: '' }, 'newsletter'],
    ['a repeated newsletter', { newsletter: ['1', '0'] }, 'newsletter'],
    ['a url without protocol', { url: 'example.com' }, 'url'],
    ['a localhost url', { url: 'http://localhost:3000' }, 'url'],
    ['an IP url', { url: 'https://127.0.0.1/' }, 'url'],
    ['a url with credentials', { url: 'https://user:pass@example.com' }, 'url'],
    ['a url with another protocol', { url: 'ftp://example.com' }, 'url'],
    [
      'a repeated url',
      { url: ['https://example.com', 'https://example.org'] },
      'url',
    ],
  ])('refuses %s', (_case, change, info) => {
    expect(readSignUp(bodyWith(change))).toEqual({
      success: false,
      code: 'CSAPI_INVALID_PARAMETER',
      info,
    });
  });

  it.each<[string, FormBody]>([
    ['no captcha token', { 'g-recaptcha-response': undefined }],
    ['an empty captcha token', { 'g-recaptcha-response': '' }],
    ['a whitespace captcha token', { 'g-recaptcha-response': '  ' }],
  ])('refuses %s as a missing captcha', (_case, change) => {
    expect(readSignUp(bodyWith(change))).toEqual({
      success: false,
      code: 'CSAPI_CAPTCHA_MISSING',
      info: 'g-recaptcha-response',
    });
  });
});
