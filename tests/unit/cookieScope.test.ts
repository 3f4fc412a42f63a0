/**
 * Where the page's cookies apply (ADR-0027 to ADR-0029): the login cookies stay
 * host-only even where `COOKIE_DOMAIN` applies, `Secure` is left out on
 * every name under localhost, and an empty cookie domain is no domain.
 */
import Cookies from 'js-cookie';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isLocalhost } from '../../common/cookieNames';
import {
  cookieAttributes,
  cookieDomainFor,
  createCookieJar,
} from '../../src/platform/cookies';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('cookie scope (ADR-0027 to ADR-0029)', () => {
  it('writes the login cookies host-only on a host within COOKIE_DOMAIN (ADR-0028)', () => {
    const set = vi.spyOn(Cookies, 'set').mockReturnValue(undefined);
    createCookieJar({
      productName: 'Vigil',
      cookieDomain: '.vigil.example',
      hostname: 'signup.vigil.example',
    }).setLoginCookies({ token: 't', sid: 's' });
    expect(set).toHaveBeenCalledTimes(3);
    for (const [name, , attributes] of set.mock.calls) {
      expect(attributes, name).not.toHaveProperty('domain');
      expect(attributes, name).toMatchObject({ secure: true });
    }
  });

  it('writes the consent id as the consent cookie: a year, Secure, across COOKIE_DOMAIN (ADR-0068, R9)', () => {
    const set = vi.spyOn(Cookies, 'set').mockReturnValue(undefined);
    const id = createCookieJar({
      productName: 'Vigil',
      cookieDomain: '.vigil.example',
      hostname: 'signup.vigil.example',
    }).consentId();
    expect(set).toHaveBeenCalledWith('Vigil_CONSENT_ID', id, {
      expires: 365,
      path: '/',
      sameSite: 'Strict',
      secure: true,
      domain: '.vigil.example',
    });
  });

  it.each(['signup.localhost', 'a.b.localhost'])(
    'leaves Secure out on %s, a name under localhost (ADR-0027)',
    (hostname) => {
      expect(isLocalhost(hostname)).toBe(true);
      expect(
        cookieAttributes(
          { productName: 'Vigil', cookieDomain: undefined, hostname },
          { days: 365, acrossSubdomains: false },
        ).secure,
      ).toBe(false);
    },
  );

  it.each(['', '.'])(
    'takes a COOKIE_DOMAIN of %j as none, even on a host written with its final dot',
    (cookieDomain) => {
      expect(
        cookieDomainFor({
          productName: 'Vigil',
          cookieDomain,
          hostname: 'signup.vigil.example.',
        }),
      ).toBeUndefined();
    },
  );
});
