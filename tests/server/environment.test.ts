/**
 * Defaults that are safe to deploy (issue 35; D90, D89; docs/contract.md
 * "Configuration"): a configuration that would run unsafely stops the
 * service with a message naming its variables, one that runs but unsafely
 * says so at start, and the settings the service reads (PUBLIC_URL,
 * CONSENT_RETENTION_DAYS) are checked like every other.
 */
import { describe, expect, it } from 'vitest';
import { RECAPTCHA_TEST_SITE_KEY } from '../../common/config';
import {
  captchaFrom,
  consentRetentionDaysFrom,
  publicUrlFrom,
  serverOptionsFrom,
  startupWarnings,
  type ServerEnvironment,
} from '../../server/environment';

const REAL_KEY = '6Lc_real_site_key_of_the_product_000000000';

function options(env: ServerEnvironment) {
  return serverOptionsFrom({ DATA_DIR: '/tmp/unused', ...env }, '/tmp/dist');
}

describe('the captcha', () => {
  it('refuses a real site key without a secret, naming both variables', () => {
    expect(() => options({ RECAPTCHA_SITE_KEY: REAL_KEY })).toThrow(
      /RECAPTCHA_SITE_KEY.*RECAPTCHA_SECRET/,
    );
  });

  it('refuses a real site key served from the default PUBLIC_URL, naming it', () => {
    expect(() =>
      options({ RECAPTCHA_SITE_KEY: REAL_KEY, RECAPTCHA_SECRET: 's' }),
    ).toThrow(/PUBLIC_URL/);
  });

  it('verifies a real key’s tokens with its secret, for PUBLIC_URL’s host', () => {
    expect(
      options({
        RECAPTCHA_SITE_KEY: REAL_KEY,
        RECAPTCHA_SECRET: ' the-secret ',
        PUBLIC_URL: 'https://Signup.Vigil.example',
      }).captcha,
    ).toEqual({ secret: 'the-secret', hostname: 'signup.vigil.example' });
  });

  it('verifies nothing with Google’s test key and no secret, and says so at start', () => {
    for (const env of [{}, { RECAPTCHA_SITE_KEY: RECAPTCHA_TEST_SITE_KEY }]) {
      expect(options(env).captcha).toBeUndefined();
      expect(startupWarnings(options(env))).toEqual([
        expect.stringMatching(
          /RECAPTCHA_SITE_KEY is Google's test key: captcha tokens are not verified/,
        ),
      ]);
    }
  });

  it('with the test key and a secret, checks success but not the host name', () => {
    expect(
      captchaFrom({ RECAPTCHA_SECRET: 's' }, RECAPTCHA_TEST_SITE_KEY),
    ).toEqual({ secret: 's' });
    expect(startupWarnings(options({ RECAPTCHA_SECRET: 's' }))).toEqual([]);
  });

  it('takes another verifier over https, or on this host', () => {
    for (const verifyUrl of [
      'https://www.recaptcha.net/recaptcha/api/siteverify',
      'http://127.0.0.1:8080/siteverify',
      'http://localhost:8080/siteverify',
      'http://[::1]:8080/siteverify',
    ]) {
      expect(
        captchaFrom(
          { RECAPTCHA_SECRET: 's', RECAPTCHA_VERIFY_URL: verifyUrl },
          RECAPTCHA_TEST_SITE_KEY,
        )?.verifyUrl,
      ).toBe(verifyUrl);
    }
  });

  it.each([
    'http://verifier.example/siteverify',
    'ftp://verifier.example/',
    'not a url',
  ])(
    'refuses RECAPTCHA_VERIFY_URL %j, which would carry the secret in the clear',
    (verifyUrl) => {
      expect(() =>
        captchaFrom(
          { RECAPTCHA_SECRET: 's', RECAPTCHA_VERIFY_URL: verifyUrl },
          RECAPTCHA_TEST_SITE_KEY,
        ),
      ).toThrow(/RECAPTCHA_VERIFY_URL/);
    },
  );
});

describe('TRUST_PROXY', () => {
  it('warns at start when it trusts every hop, naming the variable and the safe values', () => {
    const warnings = startupWarnings(
      options({ TRUST_PROXY: 'true', RECAPTCHA_SECRET: 's' }),
    );
    expect(warnings).toEqual([
      expect.stringMatching(
        /TRUST_PROXY=true.*X-Forwarded-For.*number of proxies/,
      ),
    ]);
  });

  it.each(['1', '2', '10.0.0.2', '10.0.0.0/8, 192.168.1.1', 'false', ''])(
    'says nothing of %j',
    (value) => {
      expect(
        startupWarnings(options({ TRUST_PROXY: value, RECAPTCHA_SECRET: 's' })),
      ).toEqual([]);
    },
  );
});

describe('PUBLIC_URL', () => {
  it('defaults to http://localhost:$PORT', () => {
    expect(publicUrlFrom({})).toBe('http://localhost:1234');
    expect(publicUrlFrom({ PORT: '8080' })).toBe('http://localhost:8080');
  });

  it.each([
    ['https://vigil.example', 'https://vigil.example'],
    [' https://Vigil.Example/ ', 'https://vigil.example'],
    ['http://localhost:3000', 'http://localhost:3000'],
  ])('reads %j as the origin %j', (value, origin) => {
    expect(publicUrlFrom({ PUBLIC_URL: value })).toBe(origin);
  });

  it.each([
    'vigil.example',
    'ftp://vigil.example',
    'https://vigil.example/signup',
    'https://vigil.example/?x=1',
  ])('refuses %j, naming the variable', (value) => {
    expect(() => publicUrlFrom({ PUBLIC_URL: value })).toThrow(/PUBLIC_URL/);
  });
});

describe('CONSENT_RETENTION_DAYS', () => {
  it('keeps records three years by default', () => {
    expect(consentRetentionDaysFrom({})).toBe(1095);
    expect(options({}).consentRetentionDays).toBe(1095);
  });

  it.each([
    ['365', 365],
    ['1826', 1826],
  ])('reads %j as %d days', (value, days) => {
    expect(consentRetentionDaysFrom({ CONSENT_RETENTION_DAYS: value })).toBe(
      days,
    );
  });

  it.each(['364', '30', '0', '-1', 'forever', '1.5'])(
    'refuses %j, naming the variable',
    (value) => {
      expect(() =>
        consentRetentionDaysFrom({ CONSENT_RETENTION_DAYS: value }),
      ).toThrow(/CONSENT_RETENTION_DAYS/);
    },
  );

  it('says why a year is the least', () => {
    expect(() =>
      consentRetentionDaysFrom({ CONSENT_RETENTION_DAYS: '100' }),
    ).toThrow(/at least 365: a record must outlive the consent cookie/);
  });
});
