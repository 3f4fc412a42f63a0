// @vitest-environment jsdom
/**
 * The ad networks' consent signals (src/consent/consentSignals.ts; issue 23,
 * ADR-0066): Google Consent Mode v2 commands on `dataLayer` as `gtag()` pushes
 * them (an Arguments object), Microsoft UET's on `uetq` as its documentation
 * pushes them (three values), defaults once, updates after each choice;
 * and the browser's Global Privacy Control signal as the page reads it
 * (ADR-0073, ADR-0074).
 */
import { describe, expect, it } from 'vitest';
import {
  cookieValue,
  sendsGpc,
  signalConsentDefault,
  signalConsentUpdate,
  type SignalWindow,
} from '../../src/consent/consentSignals';

const google = (value: string) => ({
  ad_storage: value,
  ad_user_data: value,
  ad_personalization: value,
  analytics_storage: value,
});

/** Each dataLayer entry as a plain array, and whether it was Arguments. */
function commands(win: SignalWindow) {
  return (win.dataLayer ?? []).map((entry) => ({
    isArguments: Object.prototype.toString.call(entry) === '[object Arguments]',
    values: Array.from(entry as ArrayLike<unknown>),
  }));
}

describe('the consent defaults', () => {
  it('deny all four Google types and UET ad storage, as gtag() and uetq.push() would', () => {
    const win: SignalWindow = {};
    signalConsentDefault(win, 'denied');
    expect(commands(win)).toEqual([
      {
        isArguments: true,
        values: ['consent', 'default', google('denied')],
      },
    ]);
    expect(win.uetq).toEqual(['consent', 'default', { ad_storage: 'denied' }]);
  });

  it('grant for a stored accept', () => {
    const win: SignalWindow = {};
    signalConsentDefault(win, 'granted');
    expect(commands(win)[0]?.values).toEqual([
      'consent',
      'default',
      google('granted'),
    ]);
    expect(win.uetq).toEqual(['consent', 'default', { ad_storage: 'granted' }]);
  });

  it('are pushed once, after what the queues already hold', () => {
    const earlier = { event: 'gtm.js' };
    const win: SignalWindow = { dataLayer: [earlier], uetq: [] };
    signalConsentDefault(win, 'denied');
    signalConsentDefault(win, 'granted');
    expect(win.dataLayer).toHaveLength(2);
    expect(win.dataLayer?.[0]).toBe(earlier);
    expect(commands(win)[1]?.values[2]).toEqual(google('denied'));
    expect(win.uetq).toHaveLength(3);
  });
});

describe('a consent update', () => {
  it('follows each choice, in order, after the default', () => {
    const win: SignalWindow = {};
    signalConsentDefault(win, 'denied');
    signalConsentUpdate(win, 'granted');
    signalConsentUpdate(win, 'denied');
    expect(commands(win).map(({ values }) => values)).toEqual([
      ['consent', 'default', google('denied')],
      ['consent', 'update', google('granted')],
      ['consent', 'update', google('denied')],
    ]);
    expect(win.uetq).toEqual([
      'consent',
      'default',
      { ad_storage: 'denied' },
      'consent',
      'update',
      { ad_storage: 'granted' },
      'consent',
      'update',
      { ad_storage: 'denied' },
    ]);
  });
});

describe('cookieValue', () => {
  it.each([
    ['Vigil_COOKIE_CONSENT=1', '1'],
    ['a=b; Vigil_COOKIE_CONSENT=0; c=d', '0'],
    ['xVigil_COOKIE_CONSENT=1; Vigil_COOKIE_CONSENT=0', '0'],
    ['Vigil_COOKIE_CONSENT_ID=abc', undefined],
    ['', undefined],
  ])('%j → %j', (cookies, value) => {
    expect(cookieValue(cookies, 'Vigil_COOKIE_CONSENT')).toBe(value);
  });
});

describe('sendsGpc: the browser’s Global Privacy Control (ADR-0073, ADR-0074)', () => {
  /**
   * A window on the page as the service sent it (parsed by jsdom), in a
   * browser whose navigator has the property, or lacks it (undefined).
   */
  function browserWindow(html: string, property: boolean | undefined) {
    const document = new DOMParser().parseFromString(html, 'text/html');
    const navigator =
      property === undefined ? {} : { globalPrivacyControl: property };
    return { document, navigator } as unknown as Window;
  }
  const plainPage = '<!doctype html><html lang=en><title>Sign up</title>';
  // What the service sends for a request with `Sec-GPC: 1`.
  const markedPage =
    '<!doctype html><html data-gpc lang=en><title>Sign up</title>';

  it.each([
    ['navigator.globalPrivacyControl is true', true, plainPage, true],
    ['it is false and the page is not marked', false, plainPage, false],
    [
      'the browser lacks it, the page is not marked',
      false,
      plainPage,
      undefined,
    ],
    [
      'the request carried Sec-GPC: 1, no property',
      true,
      markedPage,
      undefined,
    ],
    [
      'the request carried Sec-GPC: 1, the property false',
      true,
      markedPage,
      false,
    ],
  ] as const)('%s: GPC %s', (_case, expected, html, property) => {
    expect(sendsGpc(browserWindow(html, property))).toBe(expected);
  });
});
