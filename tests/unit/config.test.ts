import { describe, expect, it } from 'vitest';
import {
  readConfig,
  RECAPTCHA_TEST_SITE_KEY,
  type ConfigEnvironment,
} from '../../common/config';

const defaults = {
  productName: 'Vigil',
  cookieDomain: undefined,
  recaptchaSiteKey: '6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI',
  trackingTagUrl: undefined,
  consentRevision: 1,
};

describe('readConfig', () => {
  it('uses the defaults of docs/contract.md when nothing is set', () => {
    expect(readConfig({})).toEqual(defaults);
    expect(RECAPTCHA_TEST_SITE_KEY).toBe(defaults.recaptchaSiteKey);
  });

  it.each<[string, ConfigEnvironment]>([
    [
      'undefined',
      {
        PRODUCT_NAME: undefined,
        COOKIE_DOMAIN: undefined,
        RECAPTCHA_SITE_KEY: undefined,
        TRACKING_TAG_URL: undefined,
      },
    ],
    [
      'empty',
      {
        PRODUCT_NAME: '',
        COOKIE_DOMAIN: '',
        RECAPTCHA_SITE_KEY: '',
        TRACKING_TAG_URL: '',
      },
    ],
    [
      'whitespace',
      {
        PRODUCT_NAME: '  ',
        COOKIE_DOMAIN: ' ',
        RECAPTCHA_SITE_KEY: '\t',
        TRACKING_TAG_URL: ' \n',
      },
    ],
  ])('uses the defaults for %s variables', (_case, env) => {
    expect(readConfig(env)).toEqual(defaults);
  });

  it('reads every variable', () => {
    expect(
      readConfig({
        PRODUCT_NAME: 'Acme',
        COOKIE_DOMAIN: '.acme.example',
        RECAPTCHA_SITE_KEY: 'site-key',
        TRACKING_TAG_URL: 'https://tags.example/tag.js?id=1',
        CONSENT_REVISION: '3',
      }),
    ).toEqual({
      productName: 'Acme',
      cookieDomain: '.acme.example',
      recaptchaSiteKey: 'site-key',
      trackingTagUrl: 'https://tags.example/tag.js?id=1',
      consentRevision: 3,
    });
  });

  it('trims every value', () => {
    expect(
      readConfig({
        PRODUCT_NAME: ' Acme\n',
        COOKIE_DOMAIN: '  .acme.example ',
        RECAPTCHA_SITE_KEY: ' site-key ',
        TRACKING_TAG_URL: ' https://tags.example/tag.js ',
        CONSENT_REVISION: ' 4 ',
      }),
    ).toEqual({
      productName: 'Acme',
      cookieDomain: '.acme.example',
      recaptchaSiteKey: 'site-key',
      trackingTagUrl: 'https://tags.example/tag.js',
      consentRevision: 4,
    });
  });

  it.each(['Vigil', 'Acme_Watch', 'acme-2', 'A'])(
    'accepts the product name %j',
    (name) => {
      expect(readConfig({ PRODUCT_NAME: name }).productName).toBe(name);
    },
  );

  it.each([
    'Vigil Watch',
    'Vigil;',
    'Vigil=1',
    'Vi,gil',
    '"Vigil"',
    '_Vigil',
    '-Vigil',
    'Vigïl',
  ])('refuses the product name %j, naming the variable', (name) => {
    expect(() => readConfig({ PRODUCT_NAME: name })).toThrow(/PRODUCT_NAME/);
  });

  it.each(['.vigil.example', 'vigil.example', '.eu.vigil.example'])(
    'accepts the cookie domain %j',
    (domain) => {
      expect(readConfig({ COOKIE_DOMAIN: domain }).cookieDomain).toBe(domain);
    },
  );

  it.each([
    'vigil',
    '.vigil',
    'https://vigil.example',
    'vigil.example/',
    'vigil.example:443',
    'vigil example.com',
    'vigil..example',
    '*.vigil.example',
  ])('refuses the cookie domain %j, naming the variable', (domain) => {
    expect(() => readConfig({ COOKIE_DOMAIN: domain })).toThrow(
      /COOKIE_DOMAIN/,
    );
  });

  it.each(['http://tags.example/tag.js', 'https://tags.example/t.js?id=1'])(
    'accepts the tracking tag URL %j',
    (url) => {
      expect(readConfig({ TRACKING_TAG_URL: url }).trackingTagUrl).toBe(url);
    },
  );

  it.each([
    'tags.example/tag.js',
    '/tag.js',
    'not a url',
    'javascript:alert(1)',
    'data:text/javascript,alert(1)',
    'ftp://tags.example/tag.js',
  ])('refuses the tracking tag URL %j, naming the variable', (url) => {
    expect(() => readConfig({ TRACKING_TAG_URL: url })).toThrow(
      /TRACKING_TAG_URL/,
    );
  });

  it.each(['https://api.vigil.example', 'http://localhost:8080/', 'not a url'])(
    'stops at API_ORIGIN %j, which is no longer read (ADR-0087), and says what to do',
    (value) => {
      expect(() => readConfig({ API_ORIGIN: value })).toThrow(
        /API_ORIGIN is no longer read.*own origin.*Route \/2\//,
      );
    },
  );

  it.each(['', '  '])('reads an empty API_ORIGIN (%j) as unset', (value) => {
    expect(readConfig({ API_ORIGIN: value })).toEqual(defaults);
  });

  it('quotes the refused value in the error', () => {
    expect(() => readConfig({ COOKIE_DOMAIN: 'vigil' })).toThrow(/"vigil"/);
  });

  it.each([
    ['1', 1],
    ['7', 7],
    [' 12 ', 12],
    ['2147483647', 2_147_483_647],
  ])('reads CONSENT_REVISION %j as %d', (value, revision) => {
    expect(readConfig({ CONSENT_REVISION: value }).consentRevision).toBe(
      revision,
    );
  });

  it.each(['0', '-1', '1.5', 'two', '01', '2147483648', '1e3'])(
    'refuses CONSENT_REVISION %j, naming it',
    (value) => {
      expect(() => readConfig({ CONSENT_REVISION: value })).toThrow(
        /CONSENT_REVISION/,
      );
    },
  );

  it('returns a frozen object', () => {
    expect(Object.isFrozen(readConfig({}))).toBe(true);
    expect(
      Object.isFrozen(
        readConfig({ PRODUCT_NAME: 'Acme', CONSENT_REVISION: '2' }),
      ),
    ).toBe(true);
  });
});
