import { describe, expect, it } from 'vitest';
import { prefillOf } from '../../common/validation';
import { readAddressParameters } from '../../src/signUp/prefill';

/**
 * What the page prefills (R2.3 to R2.7): the name at once, the e-mail and
 * the site URL once the form's rules have judged them (ADR-0071).
 */
function read(search: string) {
  const { values, unchecked, utmSource, utmCampaign } =
    readAddressParameters(search);
  return {
    values: { ...values, ...prefillOf(unchecked) },
    utmSource,
    utmCampaign,
  };
}

describe('readAddressParameters', () => {
  it('leaves the e-mail and the url, trimmed, for the rules to judge', () => {
    expect(
      readAddressParameters('?name=Ada&email=%20ada@&url=%20localhost%20'),
    ).toEqual({
      values: { name: 'Ada' },
      unchecked: { email: 'ada@', url: 'localhost' },
      utmSource: undefined,
      utmCampaign: undefined,
    });
  });

  it('prefills name, e-mail and url from the address', () => {
    expect(
      read('?name=Ada%20Lovelace&email=ada%40example.com&url=example.com'),
    ).toEqual({
      values: {
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        url: 'example.com',
      },
      utmSource: undefined,
      utmCampaign: undefined,
    });
  });

  it('decodes "+" as a space and percent-escapes as UTF-8', () => {
    expect(read('?name=Zo%C3%AB+O%27Brien').values.name).toBe("Zoë O'Brien");
  });

  it('keeps a URL with its protocol, path and query', () => {
    expect(
      read('?url=' + encodeURIComponent('https://example.com/status?x=1'))
        .values.url,
    ).toBe('https://example.com/status?x=1');
  });

  it('trims the e-mail and the url', () => {
    expect(
      read('?email=%20ada@example.com%20&url=%20example.com%09').values,
    ).toEqual({ email: 'ada@example.com', url: 'example.com' });
  });

  it.each([
    'ada',
    'ada@',
    'ada@localhost',
    'ada@example',
    'ada@exa mple.com',
    '"ada"@example.com',
  ])('does not prefill the invalid e-mail %j', (email) => {
    const { values } = read(
      `?name=Ada&email=${encodeURIComponent(email)}&url=example.com`,
    );
    expect(values).toEqual({ name: 'Ada', url: 'example.com' });
    expect(values).not.toHaveProperty('email');
  });

  it.each(['bücher.de', 'https://xn--bcher-kva.de/status'])(
    'prefills the url %j, whose host only the UTS #46 rule judges, leaving it to the submit (ADR-0058)',
    (url) => {
      expect(
        read(`?email=ada@example.com&url=${encodeURIComponent(url)}`).values,
      ).toEqual({ email: 'ada@example.com', url });
    },
  );

  it.each([
    'localhost',
    'localhost:3000',
    '127.0.0.1',
    '2130706433',
    '[::1]',
    'user:pass@example.com',
    'ftp://example.com',
    'javascript:alert(1)',
    'example',
    'exa mple.com',
  ])('does not prefill the invalid url %j', (url) => {
    const { values } = read(
      `?name=Ada&email=ada@example.com&url=${encodeURIComponent(url)}`,
    );
    expect(values).toEqual({ name: 'Ada', email: 'ada@example.com' });
    expect(values).not.toHaveProperty('url');
  });

  it('reads utm_source and utm_campaign', () => {
    const parameters = read('?utm_source=google&utm_campaign=spring-sale');
    expect(parameters.utmSource).toBe('google');
    expect(parameters.utmCampaign).toBe('spring-sale');
    expect(parameters.values).toEqual({});
  });

  it('reads the UTM values alongside the prefill', () => {
    expect(
      read(
        '?name=Ada&utm_source=microsoft&email=ada@example.com&utm_campaign=q3',
      ),
    ).toEqual({
      values: { name: 'Ada', email: 'ada@example.com' },
      utmSource: 'microsoft',
      utmCampaign: 'q3',
    });
  });

  it.each(['', '?', '?foo=bar&utm_medium=email'])(
    'returns nothing for %j',
    (search) => {
      expect(read(search)).toEqual({
        values: {},
        utmSource: undefined,
        utmCampaign: undefined,
      });
    },
  );

  it('ignores blank values', () => {
    expect(
      read('?name=%20%20&email=&url=%20&utm_source=&utm_campaign=%20%09'),
    ).toEqual({ values: {}, utmSource: undefined, utmCampaign: undefined });
  });

  // The page loads the rules' chunk to judge a prefill only when the
  // address leaves something to judge (src/app.tsx): a missing or blank
  // e-mail or URL is no entry at all, not an entry without a value.
  it.each(['', '?name=Ada', '?email=%20&url='])(
    'leaves nothing for the rules to judge in %j',
    (search) => {
      expect(Object.keys(readAddressParameters(search).unchecked)).toEqual([]);
    },
  );

  // docs/url-and-email-rules.md, "Campaign": the value trimmed, kept when it
  // has 1–200 printable characters, otherwise ignored.
  it.each([
    ['%20spring%20', 'spring'],
    ['c'.repeat(200), 'c'.repeat(200)],
    ['c'.repeat(201), undefined],
    ['spring%00sale', undefined],
    ['spring%0Asale', undefined],
    ['spring%E2%80%8Bsale', undefined],
  ])('reads utm_campaign=%s as %j', (query, campaign) => {
    expect(read(`?utm_campaign=${query}`).utmCampaign).toBe(campaign);
  });

  it.each([
    ['<script>alert(1)</script>'],
    ['<b>Ada</b>'],
    ['Tom & Jerry'],
    ['<img src=x onerror=alert(1)>'],
    ['&lt;Ada&gt;'],
  ])('keeps markup in the name %j as plain text', (name) => {
    expect(read(`?name=${encodeURIComponent(name)}`).values.name).toBe(name);
  });
});
