import { afterEach, describe, expect, it, vi } from 'vitest';
import { CAMPAIGN_MAX_LENGTH, keptCampaign } from '../../common/campaign';
import { isValidEmail } from '../../common/emailAddress';
import {
  checkSiteUrl as checkSiteUrlWith,
  messages,
  siteUrlNeedsIdnRule,
  validateSignUp,
  type FormToValidate,
  type SiteUrlProblem,
} from '../../common/validation';
import { checkHostName } from '../../common/domainName';

// The site-URL rule as the API runs it: with the UTS #46 host rule
// (common/domainName.ts) that the page loads for an internationalised host.
const checkSiteUrl = (raw: string) => checkSiteUrlWith(raw, checkHostName);

describe('checkSiteUrl', () => {
  // R5.3 to R5.5: a valid URL with a protocol is accepted as is, one
  // without gets https:// prepended; the value is trimmed first.
  it.each([
    // plain domains and subdomains
    ['example.com', 'https://example.com'],
    ['a.io', 'https://a.io'],
    ['www.example.com', 'https://www.example.com'],
    ['status.eu.example.com', 'https://status.eu.example.com'],
    ['example.co.uk', 'https://example.co.uk'],
    ['my-site.example', 'https://my-site.example'],
    ['123.com', 'https://123.com'],
    ['EXAMPLE.COM', 'https://EXAMPLE.COM'],
    [`${'a'.repeat(63)}.com`, `https://${'a'.repeat(63)}.com`],
    // path, query, fragment and port
    ['example.com/status', 'https://example.com/status'],
    [
      'example.com/status?check=1&x=y',
      'https://example.com/status?check=1&x=y',
    ],
    ['example.com:8080', 'https://example.com:8080'],
    ['example.com:8080/health', 'https://example.com:8080/health'],
    // with a protocol: as typed
    ['http://example.com', 'http://example.com'],
    ['https://example.com', 'https://example.com'],
    ['https://example.com/', 'https://example.com/'],
    ['https://example.com/path?q=1#top', 'https://example.com/path?q=1#top'],
    ['http://example.com:8080/a?b=c', 'http://example.com:8080/a?b=c'],
    ['HTTPS://Example.COM', 'HTTPS://Example.COM'],
    // Unicode (IDN) names, sent as typed
    ['bücher.de', 'https://bücher.de'],
    ['https://bücher.de/katalog', 'https://bücher.de/katalog'],
    ['xn--bcher-kva.de', 'https://xn--bcher-kva.de'],
    ['пример.рф', 'https://пример.рф'],
    ['例子.中国', 'https://例子.中国'],
    // surrounding whitespace trimmed
    ['  example.com  ', 'https://example.com'],
    ['\thttps://example.com\n', 'https://example.com'],
    [' http://example.com/a ', 'http://example.com/a'],
  ])('accepts %j and sends %j', (raw, url) => {
    expect(checkSiteUrl(raw)).toEqual({ ok: true, url });
  });

  it.each<[string, SiteUrlProblem]>([
    // empty
    ['', 'empty'],
    ['   ', 'empty'],
    ['\t\n', 'empty'],
    // localhost and names under it
    ['localhost', 'local'],
    ['LOCALHOST', 'local'],
    ['localhost.', 'local'],
    ['localhost:3000', 'local'],
    ['http://localhost', 'local'],
    ['https://localhost:8443/status', 'local'],
    ['http://LocalHost.', 'local'],
    ['foo.localhost', 'local'],
    ['app.foo.localhost', 'local'],
    // IP addresses in every notation
    ['127.0.0.1', 'ip'],
    ['127.1', 'ip'],
    ['2130706433', 'ip'],
    ['0x7f000001', 'ip'],
    ['0x7f.0.0.1', 'ip'],
    ['0177.0.0.1', 'ip'],
    ['0.0.0.0', 'ip'],
    ['8.8.8.8', 'ip'],
    ['https://8.8.8.8/status', 'ip'],
    ['192.168.1.1:8080', 'ip'],
    ['[::1]', 'ip'],
    ['http://[::1]:3000/', 'ip'],
    ['[::ffff:127.0.0.1]', 'ip'],
    ['http://[::ffff:7f00:1]', 'ip'],
    ['https://[2001:db8::1]/', 'ip'],
    // credentials
    ['user:pass@example.com', 'credentials'],
    ['https://user@example.com', 'credentials'],
    ['https://user:pass@example.com/', 'credentials'],
    ['https://:secret@example.com', 'credentials'],
    // The parser drops an empty user name and password; the "@" still counts.
    ['https://@example.com', 'credentials'],
    ['https://:@example.com', 'credentials'],
    ['https://example.com\\@evil.example', 'credentials'],
    // protocols other than http: and https:
    ['ftp://example.com', 'protocol'],
    ['ws://example.com', 'protocol'],
    ['file:///etc/passwd', 'protocol'],
    ['javascript://example.com', 'protocol'],
    ['javascript:alert(1)', 'protocol'],
    ['data:text/html,x', 'protocol'],
    ['mailto:a@example.com', 'protocol'],
    ['//example.com', 'format'],
    // not a domain name with a top-level domain
    ['example', 'format'],
    ['example.123', 'format'],
    ['example.c', 'format'],
    ['1.2.3.4.5', 'format'],
    ['exa_mple.com', 'format'],
    ['_dmarc.example.com', 'format'],
    ['-example.com', 'format'],
    ['example-.com', 'format'],
    ['sub.-example.com', 'format'],
    ['example..com', 'format'],
    ['.example.com', 'format'],
    ['exa*mple.com', 'format'],
    [`${'a'.repeat(64)}.com`, 'format'],
    ['https://example.com:99999', 'format'],
    // inner whitespace
    ['exa mple.com', 'format'],
    ['exa\tmple.com', 'format'],
    ['exa\nmple.com', 'format'],
    ['https://exa mple.com', 'format'],
    ['example.com/a b', 'format'],
    ['example.com\nexample.org', 'format'],
    // a protocol and nothing else
    ['https://', 'format'],
    ['http://', 'format'],
    // invisible characters in the host, as typed or after NFKC
    ['exa\u200bmple.com', 'invisible'], // zero-width space
    ['exa\u00admple.com', 'invisible'], // soft hyphen
    ['exa\u200cmple.com', 'invisible'], // zero-width non-joiner
    ['exa\u200dmple.com', 'invisible'], // zero-width joiner
    ['exa\u2060mple.com', 'invisible'], // word joiner
    ['exa\u180emple.com', 'invisible'], // Mongolian vowel separator
    ['exa\u202emple.com', 'invisible'], // right-to-left override
    ['exa\ufe0fmple.com', 'invisible'], // variation selector
    ['\u3164.com', 'invisible'], // Hangul filler, a "letter"
    ['https://\u200bexample.com/', 'invisible'],
    ['example.com:80\u200b', 'invisible'],
    // compatibility forms of %, /, \, @ and : in the host
    ['http://％４１.com', 'lookalike'], // full-width %
    ['example.com／evil', 'lookalike'],
    ['example.com＼evil', 'lookalike'],
    ['user＠example.com', 'lookalike'],
    ['example.com﹫evil.com', 'lookalike'], // small commercial at
    ['example.com：8080', 'lookalike'],
    ['https：//example.com', 'lookalike'],
    ['a℀b.com', 'lookalike'], // NFKC: "a/c"
    ['exa︒mple.com', 'lookalike'], // a vertical full stop, no label dot
  ])('refuses %j as %s', (raw, problem) => {
    expect(checkSiteUrl(raw)).toEqual({ ok: false, problem });
  });

  it('refuses a label too long for Punycode’s integers, without throwing', () => {
    const label = `a${'\u{2a6d6}'.repeat(3000)}${'é'.repeat(3000)}`;
    expect(checkSiteUrl(`${label}.com`)).toEqual({
      ok: false,
      problem: 'format',
    });
  });

  it.each([
    // compatibility forms of letters, digits and label dots stay accepted
    ['ｅｘａｍｐｌｅ．ｃｏｍ', 'https://ｅｘａｍｐｌｅ．ｃｏｍ'],
    ['例子。中国', 'https://例子。中国'],
    ['ⓔxample.com', 'https://ⓔxample.com'],
    // in the path, such characters are the path's business
    ['example.com/a\u200bb', 'https://example.com/a\u200bb'],
    ['example.com/a／b', 'https://example.com/a／b'],
  ])('accepts %j and sends %j', (raw, url) => {
    expect(checkSiteUrl(raw)).toEqual({ ok: true, url });
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

describe('checkSiteUrl without the UTS #46 host rule (the page before its chunk, D58)', () => {
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

  it('keeps a joiner after the host as typed: the path is the server’s', () => {
    expect(checkSiteUrl('example.com/a\u200db')).toEqual({
      ok: true,
      url: 'https://example.com/a\u200db',
    });
  });

  it('gives the unchecked message in validateSignUp, and the verdict with the rule', () => {
    const form: FormToValidate = {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      url: 'bücher.de',
      tos: true,
      captchaToken: 'captcha-token',
    };
    expect(validateSignUp(form)).toEqual({ url: messages.urlUnchecked });
    expect(validateSignUp(form, checkHostName)).toEqual({});
    expect(
      validateSignUp({ ...form, url: 'bücher-.de' }, checkHostName),
    ).toEqual({ url: messages.urlInvalid });
  });
});

describe('isValidEmail', () => {
  // HTML standard "valid e-mail address", with a dot in the domain.
  it.each([
    'name@example.com',
    'first.last@example.com',
    'a+tag@example.com',
    "o'brien@example.ie",
    "!#$%&'*+/=?^_`{|}~-@example.com",
    'a..b@example.com',
    '1234@example.com',
    'USER@EXAMPLE.COM',
    'a@b.co',
    'user@sub.example.co.uk',
    'user@my-host.example',
    'name@123.example',
    `name@${'a'.repeat(63)}.com`,
    '  name@example.com  ',
    '\tname@example.com\n',
  ])('accepts %j', (email) => {
    expect(isValidEmail(email)).toBe(true);
  });

  it.each([
    '',
    '   ',
    'name',
    'name@',
    '@example.com',
    'name@localhost',
    'name@example',
    'name@@example.com',
    'na me@example.com',
    'name@exa mple.com',
    'name@example..com',
    'name@.example.com',
    'name@example.com.',
    'name@-example.com',
    'name@example-.com',
    'name@exa_mple.com',
    '"quoted"@example.com',
    'name@[127.0.0.1]',
    'zoë@example.com',
    'name@bücher.de',
    '<name@example.com>',
    'a@example.com, b@example.com',
    `name@${'a'.repeat(64)}.com`,
  ])('refuses %j', (email) => {
    expect(isValidEmail(email)).toBe(false);
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
  const valid: FormToValidate = {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    url: 'example.com',
    tos: true,
    captchaToken: 'captcha-token',
  };

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

// D44: name 200, e-mail 254, site URL 2,048 characters (code points), each
// counted on the value as it is sent: trimmed, the URL with the https:// the
// page adds. Over a limit, the field's own message; a value both malformed
// and too long hears about its format.
describe('validateSignUp: the length limits (D44)', () => {
  const valid: FormToValidate = {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    url: 'example.com',
    tos: true,
    captchaToken: 'captcha-token',
  };
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
        'a name of 201 characters',
        { name: 'x'.repeat(201) },
        { name: 'Enter a name of 200 characters or fewer' },
      ],
      [
        'a name of 201 astral characters',
        { name: '😀'.repeat(201) },
        { name: 'Enter a name of 200 characters or fewer' },
      ],
      [
        'an e-mail address of 255 characters',
        { email: emailOf(255) },
        { email: 'Enter an email address of 254 characters or fewer' },
      ],
      [
        'a URL typed as 2,041 characters, 2,049 with https://',
        { url: `example.com/${'p'.repeat(2029)}` },
        { url: 'Enter a website address of 2,048 characters or fewer' },
      ],
      [
        'a URL of 2,049 characters with https://',
        { url: `https://example.com/${'p'.repeat(2029)}` },
        { url: 'Enter a website address of 2,048 characters or fewer' },
      ],
      [
        'a URL of 2,049 characters, astral ones in its path',
        { url: `https://example.com/${'😀'.repeat(2029)}` },
        { url: 'Enter a website address of 2,048 characters or fewer' },
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
  it('says how long each field may be (D44), and how a refused name must be (R8.2)', () => {
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
