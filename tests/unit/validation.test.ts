import { afterEach, describe, expect, it, vi } from 'vitest';
import { CAMPAIGN_MAX_LENGTH, keptCampaign } from '../../common/campaign';
import {
  checkSiteUrl as checkSiteUrlWith,
  messages,
  siteUrlNeedsIdnRule,
  validateSignUp,
  type FormToValidate,
} from '../../common/validation';
import { checkHostName } from '../../common/domainName';

// The site-URL rule as the API runs it: with the UTS #46 host rule
// (common/domainName.ts) that the page loads for an internationalised host.
const checkSiteUrl = (raw: string) => checkSiteUrlWith(raw, checkHostName);

/** A form that passes every rule. */
const valid: FormToValidate = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  url: 'example.com',
  tos: true,
  captchaToken: 'captcha-token',
};

// The accepted and refused URLs, and the problem each refusal names, are in
// the named cases of tests/unit/urlOracle.test.ts.
describe('checkSiteUrl', () => {
  it('refuses a label too long for Punycode’s integers, without throwing', () => {
    const label = `a${'\u{2a6d6}'.repeat(3000)}${'é'.repeat(3000)}`;
    expect(checkSiteUrl(`${label}.com`)).toEqual({
      ok: false,
      problem: 'format',
    });
  });
});

// docs/url-and-email-rules.md, "One verdict": before the rule stopped asking
// the runtime's URL parser, these got one verdict in Chromium and another in
// Node 20.
describe('checkSiteUrl without a URL parser', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it.each<[string, boolean]>([
    ['http://a.b.c.xn--pokxncvks', false], // symbols in an A-label
    ['http://％４１.com', false],
    ['xn--a.xn--zca', false], // invalid Punycode
    ['xn--0.com', false],
    ['look\u206bout.net', false], // an invisible bidirectional control
    ['Ӏ.com', true], // a Cyrillic letter Node 20's parser refuses
    ['㛼.com', true],
    ['Ↄ.com', true],
    ['xn--bcher-kva.de', true],
  ])('decides %j (accepted: %s) with no URL parser at all', (raw, ok) => {
    vi.stubGlobal('URL', undefined);
    expect(checkSiteUrl(raw).ok).toBe(ok);
  });
});

describe('checkSiteUrl without the UTS #46 host rule (the page before its chunk, ADR-0058)', () => {
  it.each([
    ['bücher.de'],
    ['https://пример.рф/status'],
    ['xn--bcher-kva.de'],
    ['XN--BCHER-KVA.DE'],
    ['www.xn--bcher-kva.de:8080'],
    ['example.xn--p1ai'],
  ])('leaves %s unchecked: it needs the rule', (raw) => {
    expect(checkSiteUrlWith(raw)).toEqual({ ok: false, problem: 'unchecked' });
    expect(siteUrlNeedsIdnRule(raw)).toBe(true);
  });

  it.each<[string, ReturnType<typeof checkSiteUrlWith>]>([
    ['example.com', { ok: true, url: 'https://example.com' }],
    [
      'https://a--b.example.org/x',
      { ok: true, url: 'https://a--b.example.org/x' },
    ],
    ['localhost:3000', { ok: false, problem: 'local' }],
    ['127.1', { ok: false, problem: 'ip' }],
    ['example', { ok: false, problem: 'format' }],
    ['ftp://bücher.de', { ok: false, problem: 'protocol' }],
    ['https://user@bücher.de', { ok: false, problem: 'credentials' }],
    ['exa\u200bmple.com', { ok: false, problem: 'invisible' }],
  ])('decides %s without it', (raw, verdict) => {
    const rule = vi.fn(checkHostName);
    expect(checkSiteUrlWith(raw, rule)).toEqual(verdict);
    expect(rule).not.toHaveBeenCalled();
    expect(siteUrlNeedsIdnRule(raw)).toBe(false);
  });

  // Issue 27: a zero-width joiner or non-joiner in the host is IDNA's to
  // judge (RFC 5892 Appendix A), so the host rule decides it; every other
  // invisible character, and a joiner outside the host's name, is refused
  // before it.
  it.each([
    ['ශ්\u200dරී.com', { ok: true, url: 'https://ශ්\u200dරී.com' }],
    ['نامه\u200cای.com', { ok: true, url: 'https://نامه\u200cای.com' }],
    ['exa\u200dmple.com', { ok: false, problem: 'invisible' }],
    ['xn--ab-m1t.com', { ok: false, problem: 'invisible' }], // "a\u200db"
  ])('leaves the joiner in %j to the host rule', (raw, verdict) => {
    const rule = vi.fn(checkHostName);
    expect(checkSiteUrlWith(raw, rule)).toEqual(verdict);
    expect(rule).toHaveBeenCalledTimes(1);
    expect(siteUrlNeedsIdnRule(raw)).toBe(true);
  });

  it.each([
    'exa\u2060mple.com', // word joiner
    'exa\u00admple.com', // soft hyphen
    'example.com:80\u200d', // a joiner in the port
    'https://[::1\u200c]/', // a joiner in brackets
    'ශ්\u200dරී.com\u2060', // a joiner in context, a word joiner after
  ])('refuses %j as invisible before the host rule', (raw) => {
    const rule = vi.fn(checkHostName);
    expect(checkSiteUrlWith(raw, rule)).toEqual({
      ok: false,
      problem: 'invisible',
    });
    expect(rule).not.toHaveBeenCalled();
  });

  it('gives the unchecked message in validateSignUp, and the verdict with the rule', () => {
    const form = { ...valid, url: 'bücher.de' };
    expect(validateSignUp(form)).toEqual({ url: messages.urlUnchecked });
    expect(validateSignUp(form, checkHostName)).toEqual({});
    expect(
      validateSignUp({ ...form, url: 'bücher-.de' }, checkHostName),
    ).toEqual({ url: messages.urlInvalid });
  });
});

// docs/url-and-email-rules.md, "Campaign": trimmed; kept with 1–200 printable
// characters, otherwise ignored.
describe('keptCampaign', () => {
  it.each([
    ['spring-sale', 'spring-sale'],
    ['  summer sale\t', 'summer sale'],
    ['summer sale; 50% "off" é/2025', 'summer sale; 50% "off" é/2025'],
    ['<script>x</script>', '<script>x</script>'],
    ['x'.repeat(CAMPAIGN_MAX_LENGTH), 'x'.repeat(CAMPAIGN_MAX_LENGTH)],
    ['😀'.repeat(200), '😀'.repeat(200)], // 200 characters, 400 UTF-16 units
  ])('keeps %j as %j', (raw, kept) => {
    expect(keptCampaign(raw)).toBe(kept);
  });

  it.each<[string, unknown]>([
    ['201 characters', 'x'.repeat(201)],
    ['201 characters beyond U+FFFF', '😀'.repeat(201)],
    ['blank', ' \t '],
    ['empty', ''],
    ['a NUL', 'a\u0000b'],
    ['a newline inside', 'a\nb'],
    ['a DEL', 'a\u007fb'],
    ['a C1 control', 'a\u0085b'],
    ['a zero-width space', 'a\u200bb'],
    ['a right-to-left override', 'a\u202eb'],
    ['a line separator', 'a\u2028b'],
    ['a lone surrogate', 'a\ud800b'],
    ['a private-use character', 'a\ue000b'],
    ['an unassigned code point', 'a\u0378b'],
    ['undefined', undefined],
    ['null', null],
    ['a number', 5],
    ['an array', ['spring']],
  ])('ignores %s', (_case, raw) => {
    expect(keptCampaign(raw)).toBeUndefined();
  });
});

describe('validateSignUp', () => {
  it('returns {} for a valid form', () => {
    expect(validateSignUp(valid)).toEqual({});
  });

  it('returns {} when the text fields carry surrounding whitespace', () => {
    expect(
      validateSignUp({
        ...valid,
        name: '  Ada  ',
        email: ' ada@example.com ',
        url: ' https://example.com/ ',
      }),
    ).toEqual({});
  });

  it.each<[string, Partial<FormToValidate>, ReturnType<typeof validateSignUp>]>(
    [
      ['an empty name', { name: '' }, { name: messages.nameRequired }],
      [
        'a whitespace-only name',
        { name: '  \t ' },
        { name: messages.nameRequired },
      ],
      ['an empty e-mail', { email: '' }, { email: messages.emailRequired }],
      [
        'a whitespace-only e-mail',
        { email: '   ' },
        { email: messages.emailRequired },
      ],
      ['an invalid e-mail', { email: 'ada' }, { email: messages.emailInvalid }],
      [
        'an e-mail without a dot in the domain',
        { email: 'ada@localhost' },
        { email: messages.emailInvalid },
      ],
      ['an empty URL', { url: '' }, { url: messages.urlRequired }],
      ['a whitespace-only URL', { url: '  ' }, { url: messages.urlRequired }],
      ['a malformed URL', { url: 'example' }, { url: messages.urlInvalid }],
      [
        'another protocol',
        { url: 'ftp://example.com' },
        { url: messages.urlProtocol },
      ],
      ['localhost', { url: 'localhost:3000' }, { url: messages.urlLocal }],
      ['an IP address', { url: '127.0.0.1' }, { url: messages.urlIp }],
      [
        'credentials in the URL',
        { url: 'user:pass@example.com' },
        { url: messages.urlCredentials },
      ],
      ['unticked terms', { tos: false }, { tos: messages.tosRequired }],
      [
        'no captcha token',
        { captchaToken: null },
        { captcha: messages.captchaRequired },
      ],
      [
        'an empty captcha token',
        { captchaToken: '' },
        { captcha: messages.captchaRequired },
      ],
    ],
  )('maps %s to its one message', (_case, change, errors) => {
    expect(validateSignUp({ ...valid, ...change })).toEqual(errors);
  });

  it('reports every broken rule at once', () => {
    expect(
      validateSignUp({
        name: ' ',
        email: 'not-an-address',
        url: '127.1',
        tos: false,
        captchaToken: null,
      }),
    ).toEqual({
      name: messages.nameRequired,
      email: messages.emailInvalid,
      url: messages.urlIp,
      tos: messages.tosRequired,
      captcha: messages.captchaRequired,
    });
  });

  it('gives each field only its first message when everything is empty', () => {
    expect(
      validateSignUp({
        name: '',
        email: '',
        url: '',
        tos: false,
        captchaToken: null,
      }),
    ).toEqual({
      name: messages.nameRequired,
      email: messages.emailRequired,
      url: messages.urlRequired,
      tos: messages.tosRequired,
      captcha: messages.captchaRequired,
    });
  });
});

// ADR-0044: name 200, e-mail 254, site URL 2,048 characters (code points), each
// counted on the value as it is sent: trimmed, the URL with the https:// the
// page adds. Over a limit, the field's own message; a value both malformed
// and too long hears about its format.
describe('validateSignUp: the length limits (ADR-0044)', () => {
  /** A valid address of `length` characters. */
  const emailOf = (length: number) =>
    `${'a'.repeat(length - '@example.com'.length)}@example.com`;

  it.each<[string, Partial<FormToValidate>]>([
    ['a name of 200 characters', { name: 'x'.repeat(200) }],
    [
      'a name of 200 astral characters (400 UTF-16 units)',
      { name: '😀'.repeat(200) },
    ],
    [
      'a name of 200 characters between spaces',
      { name: `  ${'x'.repeat(200)} ` },
    ],
    ['an e-mail address of 254 characters', { email: emailOf(254) }],
    [
      'an e-mail address of 254 characters between spaces',
      { email: ` ${emailOf(254)}\t` },
    ],
    [
      'a URL typed without protocol, 2,048 characters with https://',
      { url: `example.com/${'p'.repeat(2028)}` },
    ],
    [
      'a URL of 2,048 characters with https://',
      { url: `https://example.com/${'p'.repeat(2028)}` },
    ],
    [
      'a URL of 2,048 characters with http://',
      { url: `http://example.com/${'p'.repeat(2029)}` },
    ],
    [
      'a URL of 2,048 characters, astral ones in its path',
      { url: `https://example.com/${'😀'.repeat(2028)}` },
    ],
    [
      'a URL of 2,048 characters between spaces',
      { url: `  https://example.com/${'p'.repeat(2028)} ` },
    ],
  ])('accepts %s', (_case, change) => {
    expect(validateSignUp({ ...valid, ...change })).toEqual({});
  });

  it.each<[string, Partial<FormToValidate>, ReturnType<typeof validateSignUp>]>(
    [
      [
        'a name of 201 astral characters',
        { name: '😀'.repeat(201) },
        { name: messages.nameTooLong },
      ],
      [
        'a URL typed as 2,041 characters, 2,049 with https://',
        { url: `example.com/${'p'.repeat(2029)}` },
        { url: messages.urlTooLong },
      ],
      [
        'a URL of 2,049 characters, astral ones in its path',
        { url: `https://example.com/${'😀'.repeat(2029)}` },
        { url: messages.urlTooLong },
      ],
      [
        'a malformed e-mail address over 254 characters',
        { email: 'a'.repeat(300) },
        { email: messages.emailInvalid },
      ],
      [
        'a localhost URL over 2,048 characters',
        { url: `localhost/${'p'.repeat(3000)}` },
        { url: messages.urlLocal },
      ],
    ],
  )('refuses %s with its field’s message', (_case, change, errors) => {
    expect(validateSignUp({ ...valid, ...change })).toEqual(errors);
  });

  // A name of 201 characters, an address of 255, a URL of 2,049 with https://.
  it('reports every field over its limit at once', () => {
    expect(
      validateSignUp({
        ...valid,
        name: 'x'.repeat(201),
        email: emailOf(255),
        url: `https://example.com/${'p'.repeat(2029)}`,
      }),
    ).toEqual({
      name: messages.nameTooLong,
      email: messages.emailTooLong,
      url: messages.urlTooLong,
    });
  });
});

describe('messages', () => {
  it('says how long each field may be (ADR-0044), and how a refused name must be (R8.2)', () => {
    expect(messages.nameTooLong).toBe(
      'Enter a name of 200 characters or fewer',
    );
    expect(messages.emailTooLong).toBe(
      'Enter an email address of 254 characters or fewer',
    );
    expect(messages.urlTooLong).toBe(
      'Enter a website address of 2,048 characters or fewer',
    );
    expect(messages.nameRefused).toBe(
      'Enter your name as plain text, up to 200 characters, without web addresses or HTML',
    );
  });

  it('has a distinct, non-empty message for every problem', () => {
    const texts = Object.values(messages);
    for (const text of texts) expect(text.trim()).not.toBe('');
    expect(new Set(texts).size).toBe(texts.length);
  });

  it('tells the visitor what to do about hidden and look-alike characters', () => {
    expect(messages.urlInvisible).toMatch(/^Enter .*without invisible/);
    expect(messages.urlLookalike).toMatch(/^Enter .*“\/”, “:”, “@” and “%”/);
  });

  it('shows an example of a valid website address in every URL message', () => {
    for (const text of [
      messages.urlRequired,
      messages.urlInvalid,
      messages.urlLocal,
      messages.urlIp,
      messages.urlCredentials,
    ]) {
      expect(text).toContain('example.com');
    }
  });
});
