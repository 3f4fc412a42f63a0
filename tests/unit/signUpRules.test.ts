import { describe, expect, it } from 'vitest';
import {
  nameProblem,
  readSignUp,
  type FormBody,
} from '../../server/signUpRules';

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
  // D44: over 200 characters.
  'x'.repeat(201),
  '李'.repeat(201),
  '😀'.repeat(201),
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
  'x'.repeat(200),
  '李'.repeat(200),
  // 200 characters, 400 UTF-16 code units
  '😀'.repeat(200),
  ` ${'x'.repeat(200)}  `,
];

describe('nameProblem', () => {
  it.each(refusedNames)('refuses %j', (name) => {
    expect(nameProblem(name)).toEqual(expect.any(String));
  });

  it.each(acceptedNames)('accepts %j', (name) => {
    expect(nameProblem(name)).toBeUndefined();
  });
});

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

  it('trims the url', () => {
    expect(readSignUp(bodyWith({ url: ' https://example.com/ ' }))).toEqual(
      expect.objectContaining({ url: 'https://example.com/' }),
    );
  });

  it('treats an empty utm_campaign as none', () => {
    expect(readSignUp(bodyWith({ utm_campaign: '' }))).toEqual(
      expect.objectContaining({ utmCampaign: undefined }),
    );
  });

  // docs/url-and-email-rules.md, "Campaign": page and API apply one campaign
  // rule, and a campaign can never block a sign-up: what the rule does not keep
  // is ignored.
  it.each<[string, FormBody['utm_campaign'], string | undefined]>([
    ['trims it', '  spring-sale  ', 'spring-sale'],
    ['keeps 200 characters', 'c'.repeat(200), 'c'.repeat(200)],
    ['keeps 200 astral characters', '😀'.repeat(200), '😀'.repeat(200)],
    ['ignores 201 characters', 'c'.repeat(201), undefined],
    ['ignores a control character', 'spring\u0000sale', undefined],
    ['ignores a newline', 'spring\nsale', undefined],
    ['ignores a zero-width space', 'spring\u200bsale', undefined],
    ['ignores a right-to-left override', 'spring\u202esale', undefined],
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

  it.each<[string, FormBody, string, string]>([
    ['no name', { name: undefined }, 'CSAPI_INVALID_PARAMETER', 'name'],
    [
      'a repeated name',
      { name: ['Ada', 'Bob'] },
      'CSAPI_INVALID_PARAMETER',
      'name',
    ],
    ['no e-mail', { email: undefined }, 'CSAPI_INVALID_PARAMETER', 'email'],
    ['an empty e-mail', { email: '' }, 'CSAPI_INVALID_PARAMETER', 'email'],
    ['an invalid e-mail', { email: 'ada' }, 'CSAPI_INVALID_PARAMETER', 'email'],
    [
      'an e-mail without a dot in the domain',
      { email: 'ada@localhost' },
      'CSAPI_INVALID_PARAMETER',
      'email',
    ],
    [
      'a repeated e-mail',
      { email: ['ada@example.com', 'bob@example.com'] },
      'CSAPI_INVALID_PARAMETER',
      'email',
    ],
    [
      'no captcha token',
      { 'g-recaptcha-response': undefined },
      'CSAPI_CAPTCHA_MISSING',
      'g-recaptcha-response',
    ],
    [
      'an empty captcha token',
      { 'g-recaptcha-response': '' },
      'CSAPI_CAPTCHA_MISSING',
      'g-recaptcha-response',
    ],
    [
      'a whitespace captcha token',
      { 'g-recaptcha-response': '  ' },
      'CSAPI_CAPTCHA_MISSING',
      'g-recaptcha-response',
    ],
    [
      'a repeated captcha token',
      { 'g-recaptcha-response': ['a', 'b'] },
      'CSAPI_INVALID_PARAMETER',
      'g-recaptcha-response',
    ],
    [
      'no newsletter',
      { newsletter: undefined },
      'CSAPI_INVALID_PARAMETER',
      'newsletter',
    ],
    [
      'a newsletter of true',
      { newsletter: 'true' },
      'CSAPI_INVALID_PARAMETER',
      'newsletter',
    ],
    [
      'an empty newsletter',
      { newsletter: '' },
      'CSAPI_INVALID_PARAMETER',
      'newsletter',
    ],
    [
      'a repeated newsletter',
      { newsletter: ['1', '0'] },
      'CSAPI_INVALID_PARAMETER',
      'newsletter',
    ],
    [
      'a url without protocol',
      { url: 'example.com' },
      'CSAPI_INVALID_PARAMETER',
      'url',
    ],
    [
      'a localhost url',
      { url: 'http://localhost:3000' },
      'CSAPI_INVALID_PARAMETER',
      'url',
    ],
    [
      'an IP url',
      { url: 'https://127.0.0.1/' },
      'CSAPI_INVALID_PARAMETER',
      'url',
    ],
    [
      'a url with credentials',
      { url: 'https://user:pass@example.com' },
      'CSAPI_INVALID_PARAMETER',
      'url',
    ],
    [
      'a url with another protocol',
      { url: 'ftp://example.com' },
      'CSAPI_INVALID_PARAMETER',
      'url',
    ],
    [
      'a repeated url',
      { url: ['https://example.com', 'https://example.org'] },
      'CSAPI_INVALID_PARAMETER',
      'url',
    ],
  ])('refuses %s', (_case, change, code, info) => {
    expect(readSignUp(bodyWith(change))).toEqual({
      success: false,
      code,
      info,
    });
  });
});
