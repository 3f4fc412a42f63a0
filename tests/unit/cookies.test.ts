// @vitest-environment jsdom
import Cookies from 'js-cookie';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CAMPAIGN_LIFETIME_DAYS,
  cookieNames,
  DEFAULT_LIFETIME_DAYS,
} from '../../common/cookieNames';
import {
  cookieAttributes,
  cookieDomainFor,
  createCookieJar,
  type CookieJarOptions,
} from '../../src/platform/cookies';
import {
  candidateCookieDomains,
  deleteTrackerCookies,
  TRACKER_COOKIE,
} from '../../src/consent/trackerCookies';

function clearCookies() {
  for (const name of Object.keys(Cookies.get())) {
    Cookies.remove(name, { path: '/' });
  }
}

beforeEach(clearCookies);
afterEach(() => {
  vi.restoreAllMocks();
  clearCookies();
});

/** jsdom's page is http://localhost:3000. */
const onLocalhost: CookieJarOptions = {
  productName: 'Vigil',
  cookieDomain: undefined,
  hostname: 'localhost',
};

describe('cookieNames', () => {
  it.each(['Vigil', 'Acme-Watch'])('prefixes every name with %s', (product) => {
    expect(cookieNames(product)).toEqual({
      login: `${product}Login`,
      welcomeMessage: `${product}_WELCOME_MESSAGE`,
      firstSignIn: `${product}_FIRST_SIGNIN`,
      consent: `${product}_COOKIE_CONSENT`,
      consentRevision: `${product}_CONSENT_REVISION`,
      consentId: `${product}_CONSENT_ID`,
      campaign: `${product}_CAMPAIGN`,
      session: `${product}_SESSION`,
    });
  });
});

describe('lifetimes', () => {
  it('keeps cookies 365 days by default and the campaign 30 days', () => {
    expect(DEFAULT_LIFETIME_DAYS).toBe(365);
    expect(CAMPAIGN_LIFETIME_DAYS).toBe(30);
  });
});

describe('cookieAttributes', () => {
  const onProduct: CookieJarOptions = {
    productName: 'Vigil',
    cookieDomain: '.vigil.example',
    hostname: 'signup.vigil.example',
  };

  // toStrictEqual: a host-only cookie has no `domain` key at all.
  it('is strict same-site, site-wide, secure and host-only on a public host', () => {
    expect(
      cookieAttributes(onProduct, { days: 365, acrossSubdomains: false }),
    ).toStrictEqual({
      expires: 365,
      path: '/',
      sameSite: 'Strict',
      secure: true,
    });
  });

  it('sets the cookie domain across subdomains when one is configured', () => {
    expect(
      cookieAttributes(onProduct, { days: 30, acrossSubdomains: true }),
    ).toEqual({
      expires: 30,
      path: '/',
      sameSite: 'Strict',
      secure: true,
      domain: '.vigil.example',
    });
  });

  it('stays host-only when no cookie domain is configured', () => {
    expect(
      cookieAttributes(
        { ...onProduct, cookieDomain: undefined },
        { days: 30, acrossSubdomains: true },
      ),
    ).toStrictEqual({
      expires: 30,
      path: '/',
      sameSite: 'Strict',
      secure: true,
    });
  });

  it.each([
    ['localhost', false],
    ['vigil.example', true],
    ['localhost.vigil.example', true],
    ['mylocalhost', true],
    ['127.0.0.1', true],
  ])('on %s, secure is %s', (hostname, secure) => {
    expect(
      cookieAttributes(
        { ...onLocalhost, hostname },
        { days: 365, acrossSubdomains: false },
      ),
    ).toEqual({ expires: 365, path: '/', sameSite: 'Strict', secure });
  });
});

describe('createCookieJar', () => {
  it('sets the login cookies from the token and sid, the flags as 1', () => {
    createCookieJar(onLocalhost).setLoginCookies({
      token: 'the-token',
      sid: 'the-sid',
    });
    expect(JSON.parse(Cookies.get('VigilLogin') ?? '')).toEqual({
      VigilToken: 'the-token',
      VigilSID: 'the-sid',
    });
    // The flags as a plain 1 in the cookie header.
    const pairs = document.cookie.split('; ');
    expect(pairs).toContain('Vigil_WELCOME_MESSAGE=1');
    expect(pairs).toContain('Vigil_FIRST_SIGNIN=1');
  });

  it('keeps a token and sid with cookie-unsafe characters intact', () => {
    const session = { token: 'a;b=c, "d" é/+', sid: 'sid with spaces;' };
    createCookieJar(onLocalhost).setLoginCookies(session);
    expect(JSON.parse(Cookies.get('VigilLogin') ?? '')).toEqual({
      VigilToken: session.token,
      VigilSID: session.sid,
    });
  });

  it('names the login cookie and its keys after the product', () => {
    createCookieJar({ ...onLocalhost, productName: 'Acme' }).setLoginCookies({
      token: 'the-token',
      sid: 'the-sid',
    });
    expect(JSON.parse(Cookies.get('AcmeLogin') ?? '')).toEqual({
      AcmeToken: 'the-token',
      AcmeSID: 'the-sid',
    });
    expect(Cookies.get('Acme_WELCOME_MESSAGE')).toBe('1');
    expect(Cookies.get('Acme_FIRST_SIGNIN')).toBe('1');
    expect(Cookies.get('VigilLogin')).toBeUndefined();
  });

  it('writes the login cookies for 365 days, strict same-site', () => {
    const set = vi.spyOn(Cookies, 'set').mockReturnValue(undefined);
    createCookieJar(onLocalhost).setLoginCookies({ token: 't', sid: 's' });
    expect(set.mock.calls.map(([name]) => name).sort()).toEqual(
      ['VigilLogin', 'Vigil_FIRST_SIGNIN', 'Vigil_WELCOME_MESSAGE'].sort(),
    );
    for (const [, , attributes] of set.mock.calls) {
      expect(attributes).toMatchObject({
        expires: 365,
        path: '/',
        sameSite: 'Strict',
        secure: false,
      });
    }
  });

  it('reads back the last campaign it wrote', () => {
    const jar = createCookieJar(onLocalhost);
    expect(jar.readCampaign()).toBeUndefined();
    jar.writeCampaign('first');
    jar.writeCampaign('spring-sale');
    expect(jar.readCampaign()).toBe('spring-sale');
    expect(Cookies.get('Vigil_CAMPAIGN')).toBe('spring-sale');
  });

  it('round-trips a campaign with cookie-unsafe characters', () => {
    const jar = createCookieJar(onLocalhost);
    jar.writeCampaign('summer sale; 50% "off" é/2025');
    expect(jar.readCampaign()).toBe('summer sale; 50% "off" é/2025');
  });

  // docs/url-and-email-rules.md, "Campaign": only a campaign of 1–200
  // printable characters is stored; anything else is ignored, so it never
  // reaches a sign-up.
  it('stores the campaign trimmed', () => {
    const jar = createCookieJar(onLocalhost);
    jar.writeCampaign('  spring-sale\t');
    expect(Cookies.get('Vigil_CAMPAIGN')).toBe('spring-sale');
  });

  it.each([
    ['201 characters', 'c'.repeat(201)],
    ['a control character', 'spring\u0007sale'],
    ['a zero-width space', 'spring\u200bsale'],
    ['whitespace only', ' \t '],
  ])('ignores a campaign of %s and keeps the stored one', (_case, value) => {
    const jar = createCookieJar(onLocalhost);
    jar.writeCampaign('spring-sale');
    jar.writeCampaign(value);
    expect(Cookies.get('Vigil_CAMPAIGN')).toBe('spring-sale');
    expect(jar.readCampaign()).toBe('spring-sale');
  });

  it('stores a campaign of exactly 200 characters', () => {
    const jar = createCookieJar(onLocalhost);
    jar.writeCampaign('é'.repeat(200));
    expect(jar.readCampaign()).toBe('é'.repeat(200));
  });

  it('ignores a stored campaign the rule would not keep', () => {
    // As one written before the rule, or by hand, may be.
    Cookies.set('Vigil_CAMPAIGN', 'c'.repeat(201), { path: '/' });
    expect(createCookieJar(onLocalhost).readCampaign()).toBeUndefined();
  });

  it('writes the campaign for 30 days across all subdomains', () => {
    const set = vi.spyOn(Cookies, 'set').mockReturnValue(undefined);
    createCookieJar({
      productName: 'Vigil',
      cookieDomain: '.vigil.example',
      hostname: 'signup.vigil.example',
    }).writeCampaign('spring-sale');
    expect(set).toHaveBeenCalledTimes(1);
    expect(set).toHaveBeenCalledWith('Vigil_CAMPAIGN', 'spring-sale', {
      expires: 30,
      path: '/',
      sameSite: 'Strict',
      secure: true,
      domain: '.vigil.example',
    });
  });
});

describe('cookieDomainFor', () => {
  it.each([
    ['signup.vigil.example', '.vigil.example', '.vigil.example'],
    ['vigil.example', '.vigil.example', '.vigil.example'],
    ['a.b.vigil.example', 'vigil.example', 'vigil.example'],
    ['SIGNUP.Vigil.Example', '.vigil.example', '.vigil.example'],
    // A browser drops a cookie whose Domain does not match the host (RFC
    // 6265 §5.3; ADR-0029), so the page falls back to host-only there.
    ['localhost', '.vigil.example', undefined],
    ['evilvigil.example', '.vigil.example', undefined],
    ['signup.vigil.example', undefined, undefined],
  ])('on %s with COOKIE_DOMAIN %s: %s', (hostname, cookieDomain, expected) => {
    expect(
      cookieDomainFor({ productName: 'Vigil', cookieDomain, hostname }),
    ).toBe(expected);
  });
});

describe('candidateCookieDomains', () => {
  it('lists the host and its parents down to two labels', () => {
    expect(candidateCookieDomains('a.signup.vigil.example')).toEqual([
      'a.signup.vigil.example',
      'signup.vigil.example',
      'vigil.example',
    ]);
    expect(candidateCookieDomains('localhost')).toEqual([]);
  });
});

describe('consent cookie', () => {
  it.each([
    ['1', 'accepted'],
    ['0', 'rejected'],
    ['yes', 'unset'],
    ['', 'unset'],
    [null, 'unset'],
  ])('reads %j (null: no cookie) as %s', (value, choice) => {
    if (value !== null) Cookies.set('Vigil_COOKIE_CONSENT', value);
    expect(createCookieJar(onLocalhost).readConsent()).toBe(choice);
  });

  it.each([
    ['accepted', '1'],
    ['rejected', '0'],
  ] as const)(
    'writes %s as %s, 365 days across all subdomains, with its revision alike',
    (choice, value) => {
      const set = vi.spyOn(Cookies, 'set').mockReturnValue(undefined);
      createCookieJar({
        productName: 'Vigil',
        cookieDomain: '.vigil.example',
        hostname: 'signup.vigil.example',
      }).writeConsent(choice, 3);
      const attributes = {
        expires: 365,
        path: '/',
        sameSite: 'Strict',
        secure: true,
        domain: '.vigil.example',
      };
      expect(set).toHaveBeenCalledWith(
        'Vigil_COOKIE_CONSENT',
        value,
        attributes,
      );
      // Issue 23 (ADR-0067): the revision with the consent cookie's attributes.
      expect(set).toHaveBeenCalledWith(
        'Vigil_CONSENT_REVISION',
        '3',
        attributes,
      );
    },
  );

  // ADR-0067: no cookie is a choice stored before revisions were (the machine
  // counts it as revision 1); anything but a positive integer is older
  // than every revision.
  it.each([
    ['1', 1],
    ['12', 12],
    ['0', 0],
    ['-1', 0],
    ['1.5', 0],
    ['abc', 0],
    ['', 0],
    [null, undefined],
  ])('reads the revision %j (null: no cookie) as %j', (value, revision) => {
    if (value !== null) Cookies.set('Vigil_CONSENT_REVISION', value);
    expect(createCookieJar(onLocalhost).readConsentRevision()).toBe(revision);
  });

  it('creates a random consent id once, with the consent cookie’s attributes', () => {
    const jar = createCookieJar(onLocalhost);
    const set = vi.spyOn(Cookies, 'set');
    const id = jar.consentId();
    expect(id).toMatch(
      /^[\da-f]{8}-[\da-f]{4}-4[\da-f]{3}-[89ab][\da-f]{3}-[\da-f]{12}$/,
    );
    expect(set).toHaveBeenCalledWith('Vigil_CONSENT_ID', id, {
      expires: 365,
      path: '/',
      sameSite: 'Strict',
      secure: false,
    });
    expect(jar.consentId()).toBe(id);
    expect(set).toHaveBeenCalledTimes(1);
    expect(createCookieJar(onLocalhost).consentId()).toBe(id);
    set.mockRestore();
  });

  describe('a new consent id, in a secure context and outside one (no crypto.randomUUID)', () => {
    const platform = crypto;
    afterEach(() => {
      vi.unstubAllGlobals();
    });

    /** A page's crypto without randomUUID, its random bytes all `byte`. */
    function cryptoFilling(byte: number) {
      vi.stubGlobal('crypto', {
        getRandomValues: <T extends ArrayBufferView>(array: T): T => {
          new Uint8Array(array.buffer).fill(byte);
          return array;
        },
      });
    }

    // RFC 9562 §5.4: the version (0100) in bits 48 to 51, the variant (10)
    // in bits 64 and 65; every other bit random.
    it.each([
      [0x00, '00000000-0000-4000-8000-000000000000'],
      [0xff, 'ffffffff-ffff-4fff-bfff-ffffffffffff'],
      [0x5a, '5a5a5a5a-5a5a-4a5a-9a5a-5a5a5a5a5a5a'],
    ])(
      'makes a version 4 UUID from crypto.getRandomValues (bytes 0x%s)',
      (byte, uuid) => {
        cryptoFilling(byte);
        expect(createCookieJar(onLocalhost).consentId()).toBe(uuid);
        expect(Cookies.get('Vigil_CONSENT_ID')).toBe(uuid);
      },
    );

    it("takes the platform's crypto.randomUUID where the page has one", () => {
      vi.stubGlobal('crypto', {
        randomUUID: () => '0b6c1a5e-3f4d-4c2b-9a8e-1d2c3b4a5f60',
        getRandomValues: () => {
          throw new Error('not called where randomUUID is');
        },
      });
      expect(createCookieJar(onLocalhost).consentId()).toBe(
        '0b6c1a5e-3f4d-4c2b-9a8e-1d2c3b4a5f60',
      );
    });

    it('makes a new one for each browser', () => {
      vi.stubGlobal('crypto', {
        getRandomValues: platform.getRandomValues.bind(platform),
      });
      const first = createCookieJar(onLocalhost).consentId();
      clearCookies();
      const second = createCookieJar(onLocalhost).consentId();
      expect(first).toMatch(
        /^[\da-f]{8}-[\da-f]{4}-4[\da-f]{3}-[89ab][\da-f]{3}-[\da-f]{12}$/,
      );
      expect(second).not.toBe(first);
    });
  });

  it.each([
    ['x', ''],
    ['', 'x'],
  ])(
    'replaces a consent id with %j before a UUID and %j after it',
    (before, after) => {
      const stored = `${before}0b6c1a5e-3f4d-4c2b-9a8e-1d2c3b4a5f60${after}`;
      Cookies.set('Vigil_CONSENT_ID', stored);
      const id = createCookieJar(onLocalhost).consentId();
      expect(id).not.toBe(stored);
      expect(Cookies.get('Vigil_CONSENT_ID')).toBe(id);
    },
  );

  it('replaces a consent id that is not a UUID', () => {
    Cookies.set('Vigil_CONSENT_ID', 'forged<script>');
    const id = createCookieJar(onLocalhost).consentId();
    expect(id).not.toBe('forged<script>');
    expect(Cookies.get('Vigil_CONSENT_ID')).toBe(id);
  });
});

describe('tracker cookies', () => {
  const trackers = [
    '_ga',
    '_ga_ABC123',
    '_gid',
    '_gcl_au',
    '_gcl_aw',
    '_uetsid',
  ];
  const others = ['_gat', '_gallery', 'Vigil_COOKIE_CONSENT', 'ga'];
  it.each([
    ...[...trackers, '_uetvid', '_fbp'].map((name) => [name, true] as const),
    ...others.map((name) => [name, false] as const),
  ])('%s is a tracker cookie: %s', (name, tracker) => {
    expect(TRACKER_COOKIE.test(name)).toBe(tracker);
  });

  it('deletes every tracker cookie and keeps the rest', () => {
    for (const name of [
      '_ga',
      '_ga_X1',
      '_gid',
      '_gcl_au',
      '_uetsid',
      '_fbp',
    ]) {
      Cookies.set(name, 'x', { path: '/' });
    }
    Cookies.set('Vigil_COOKIE_CONSENT', '0', { path: '/' });
    Cookies.set('_gallery', 'keep', { path: '/' });
    const deleted = deleteTrackerCookies('localhost', undefined);
    expect(deleted.sort()).toEqual(
      ['_fbp', '_ga', '_ga_X1', '_gcl_au', '_gid', '_uetsid'].sort(),
    );
    expect(Object.keys(Cookies.get()).sort()).toEqual([
      'Vigil_COOKIE_CONSENT',
      '_gallery',
    ]);
  });

  it('tries host-only, every parent domain and the product domain', () => {
    Cookies.set('_ga', 'x', { path: '/' });
    const remove = vi.spyOn(Cookies, 'remove');
    deleteTrackerCookies(
      'signup.vigil.example',
      cookieDomainFor({
        productName: 'Vigil',
        cookieDomain: '.vigil.example',
        hostname: 'signup.vigil.example',
      }),
    );
    expect(remove.mock.calls).toEqual([
      ['_ga', { path: '/' }],
      ['_ga', { path: '/', domain: 'signup.vigil.example' }],
      ['_ga', { path: '/', domain: 'vigil.example' }],
      ['_ga', { path: '/', domain: '.vigil.example' }],
    ]);
  });

  it('outside the product domain (localhost) tries no Domain the browser would refuse', () => {
    Cookies.set('_ga', 'x', { path: '/' });
    const remove = vi.spyOn(Cookies, 'remove');
    deleteTrackerCookies(
      'localhost',
      cookieDomainFor({
        productName: 'Vigil',
        cookieDomain: '.vigil.example',
        hostname: 'localhost',
      }),
    );
    expect(remove.mock.calls).toEqual([['_ga', { path: '/' }]]);
  });
});
