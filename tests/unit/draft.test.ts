// @vitest-environment jsdom
/**
 * The sign-up draft (src/inputCapture/draft.ts, ADR-0055), from issue 22: the
 * five values kept in the tab's sessionStorage under `{product}_SIGNUP_DRAFT`,
 * never the captcha token; a field the address names is the link's, not the
 * draft's (the inline script's use: tests/unit/inputCapture.test.ts); storage
 * that throws (Safari's private mode, storage disabled, the quota) never
 * breaks the page: the form simply works without a draft.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  addressNames,
  deleteDraft,
  draftKey,
  readDraft,
  writeDraft,
  type DraftPlace,
} from '../../src/inputCapture/draft';

const place: DraftPlace = {
  storage: () => window.sessionStorage,
  key: 'Vigil_SIGNUP_DRAFT',
};

const values = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  url: 'ada.example',
  newsletter: true,
  tos: false,
};

afterEach(() => {
  window.sessionStorage.clear();
});

describe('the draft in sessionStorage', () => {
  it('is named after the product, as its cookies are', () => {
    expect(draftKey('Vigil')).toBe('Vigil_SIGNUP_DRAFT');
    expect(draftKey('Acme')).toBe('Acme_SIGNUP_DRAFT');
  });

  it('keeps the five values, and reads them back', () => {
    writeDraft(place, values);
    expect(
      JSON.parse(window.sessionStorage.getItem('Vigil_SIGNUP_DRAFT') ?? ''),
    ).toEqual(values);
    expect(readDraft(place)).toEqual(values);
  });

  it('stores nothing beyond the five values (no captcha token)', () => {
    writeDraft(place, {
      ...values,
      captchaToken: 'token',
    } as typeof values);
    expect(
      Object.keys(
        JSON.parse(
          window.sessionStorage.getItem('Vigil_SIGNUP_DRAFT') ?? '',
        ) as object,
      ).sort(),
    ).toEqual(['email', 'name', 'newsletter', 'tos', 'url']);
  });

  it('is gone once deleted', () => {
    writeDraft(place, values);
    deleteDraft(place);
    expect(window.sessionStorage.getItem('Vigil_SIGNUP_DRAFT')).toBeNull();
    expect(readDraft(place)).toEqual({});
  });

  it('reads only values of the right type from whatever is stored', () => {
    window.sessionStorage.setItem(
      'Vigil_SIGNUP_DRAFT',
      JSON.stringify({ name: 'Ada', email: 42, tos: 'yes', newsletter: true }),
    );
    expect(readDraft(place)).toEqual({ name: 'Ada', newsletter: true });
    for (const stored of ['not json', 'null', '"Ada"', '[1]']) {
      window.sessionStorage.setItem('Vigil_SIGNUP_DRAFT', stored);
      expect(readDraft(place)).toEqual({});
    }
  });
});

describe('storage that throws', () => {
  const blocked = (error: Error): DraftPlace => ({
    key: 'Vigil_SIGNUP_DRAFT',
    storage: () => {
      throw error;
    },
  });
  const throwing: DraftPlace = {
    key: 'Vigil_SIGNUP_DRAFT',
    storage: () =>
      ({
        getItem: () => {
          throw new DOMException('denied', 'SecurityError');
        },
        setItem: () => {
          throw new DOMException('full', 'QuotaExceededError');
        },
        removeItem: () => {
          throw new DOMException('denied', 'SecurityError');
        },
      }) as unknown as Storage,
  };

  it.each([
    [
      'the getter (storage disabled)',
      blocked(new DOMException('denied', 'SecurityError')),
    ],
    ['every call (private mode, the quota)', throwing],
  ])('never breaks the form: %s', (_, broken) => {
    expect(() => writeDraft(broken, values)).not.toThrow();
    expect(readDraft(broken)).toEqual({});
    expect(() => deleteDraft(broken)).not.toThrow();
  });
});

describe('addressNames: a new link wins over the draft', () => {
  it('names a field whose parameter is not blank, valid or not', () => {
    expect(addressNames('?email=grace%40example.com', 'email')).toBe(true);
    expect(addressNames('?email=not-an-address', 'email')).toBe(true);
    expect(addressNames('?name=Grace&url=+', 'name')).toBe(true);
  });

  it('names no field that is absent or blank', () => {
    expect(addressNames('', 'email')).toBe(false);
    expect(addressNames('?utm_source=google', 'name')).toBe(false);
    expect(addressNames('?name=Grace&url=+', 'url')).toBe(false);
    expect(addressNames('?email=', 'email')).toBe(false);
  });
});
