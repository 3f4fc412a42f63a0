import Cookies from 'js-cookie';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CAMPAIGN_LIFETIME_DAYS,
  cookieAttributes,
  cookieNames,
  createCookieJar,
  DEFAULT_LIFETIME_DAYS,
  type CookieJarOptions,
} from '../../src/cookies';

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
  it('names the cookies of Vigil', () => {
    expect(cookieNames('Vigil')).toEqual({
      login: 'VigilLogin',
      welcomeMessage: 'Vigil_WELCOME_MESSAGE',
      firstSignIn: 'Vigil_FIRST_SIGNIN',
      consent: 'Vigil_COOKIE_CONSENT',
      campaign: 'Vigil_CAMPAIGN',
    });
  });

  it('prefixes every name with another product name', () => {
    expect(cookieNames('Acme-Watch')).toEqual({
      login: 'Acme-WatchLogin',
      welcomeMessage: 'Acme-Watch_WELCOME_MESSAGE',
      firstSignIn: 'Acme-Watch_FIRST_SIGNIN',
      consent: 'Acme-Watch_COOKIE_CONSENT',
      campaign: 'Acme-Watch_CAMPAIGN',
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

  it('is strict same-site, site-wide and secure on a public host', () => {
    expect(
      cookieAttributes(onProduct, { days: 365, acrossSubdomains: false }),
    ).toEqual({ expires: 365, path: '/', sameSite: 'Strict', secure: true });
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
    const attributes = cookieAttributes(
      { ...onProduct, cookieDomain: undefined },
      { days: 30, acrossSubdomains: true },
    );
    expect(attributes).not.toHaveProperty('domain');
    expect(attributes).toEqual({
      expires: 30,
      path: '/',
      sameSite: 'Strict',
      secure: true,
    });
  });

  it('never sets the domain of a host-only cookie', () => {
    expect(
      cookieAttributes(onProduct, { days: 365, acrossSubdomains: false }),
    ).not.toHaveProperty('domain');
  });

  it('is not secure on localhost', () => {
    expect(
      cookieAttributes(onLocalhost, { days: 365, acrossSubdomains: false }),
    ).toEqual({ expires: 365, path: '/', sameSite: 'Strict', secure: false });
  });

  it.each([
    'vigil.example',
    'localhost.vigil.example',
    'mylocalhost',
    '127.0.0.1',
  ])('is secure on %s', (hostname) => {
    expect(
      cookieAttributes(
        { ...onLocalhost, hostname },
        { days: 365, acrossSubdomains: false },
      ).secure,
    ).toBe(true);
  });
});

describe('createCookieJar', () => {
  it('sets the login cookies from the token and sid', () => {
    createCookieJar(onLocalhost).setLoginCookies({
      token: 'the-token',
      sid: 'the-sid',
    });
    const login = Cookies.get('VigilLogin');
    expect(login).toBeDefined();
    expect(JSON.parse(login ?? '')).toEqual({
      VigilToken: 'the-token',
      VigilSID: 'the-sid',
    });
    expect(Cookies.get('Vigil_WELCOME_MESSAGE')).toBe('1');
    expect(Cookies.get('Vigil_FIRST_SIGNIN')).toBe('1');
  });

  it('writes the flags as plain 1 in the cookie header', () => {
    createCookieJar(onLocalhost).setLoginCookies({ token: 't', sid: 's' });
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

  it('reads back the campaign it wrote', () => {
    const jar = createCookieJar(onLocalhost);
    expect(jar.readCampaign()).toBeUndefined();
    jar.writeCampaign('spring-sale');
    expect(jar.readCampaign()).toBe('spring-sale');
    expect(Cookies.get('Vigil_CAMPAIGN')).toBe('spring-sale');
  });

  it('keeps the last campaign written', () => {
    const jar = createCookieJar(onLocalhost);
    jar.writeCampaign('first');
    jar.writeCampaign('second');
    expect(jar.readCampaign()).toBe('second');
  });

  it('round-trips a campaign with cookie-unsafe characters', () => {
    const jar = createCookieJar(onLocalhost);
    jar.writeCampaign('summer sale; 50% "off" é/2025');
    expect(jar.readCampaign()).toBe('summer sale; 50% "off" é/2025');
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
