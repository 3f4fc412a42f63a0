/**
 * The two transactional mails (server/accounts/linkMails/linkMessages.ts), as
 * the outbox lays them out (server/outbox/channels/email.ts), judged against the
 * rules they follow rather than against their own output: one link each,
 * to the continue page on `PUBLIC_URL`; nothing that loads from elsewhere;
 * every value escaped in the HTML; the auto-responders silenced (RFC 3834
 * §5); the token gone from the copy the database keeps; and a From header
 * whose display name is an RFC 5322 quoted-string.
 */
import { describe, expect, it } from 'vitest';
import {
  linkNotice,
  watchedHost,
  type LinkNoticeInput,
  type MailKind,
} from '../../server/accounts/linkMails/linkMessages';
import {
  fromHeader,
  mailOf,
  type ComposedMail,
} from '../../server/outbox/index';
import { durationInWords } from '../../server/monitor/words';

const PUBLIC_URL = 'https://vigil.example';
const TOKEN = 'q3Zr9Xw-_b1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX';
const LINK = `https://vigil.example/link?token=${TOKEN}`;

/** What the tests vary of one link mail: its words, and how it is addressed. */
interface MailInput extends LinkNoticeInput {
  /** The From header, already formatted by {@link fromHeader}. */
  from: string;
  recipient: string;
  /** e.g. `<vigil-12-1700000000000@vigil.example>`. */
  messageId: string;
}

/** One link mail, as the outbox sends it. */
function composeMail(input: MailInput): ComposedMail {
  return mailOf(linkNotice(input), {
    from: input.from,
    to: input.recipient,
    messageId: input.messageId,
    productName: input.productName,
  });
}

function input(overrides: Partial<MailInput> = {}): MailInput {
  return {
    kind: 'confirm',
    productName: 'Vigil',
    publicUrl: PUBLIC_URL,
    from: '"Vigil" <no-reply@vigil.example>',
    recipient: 'ada@example.com',
    name: 'Ada',
    newsletter: false,
    token: TOKEN,
    messageId: '<vigil-12-1700000000000@vigil.example>',
    ...overrides,
  };
}

const KINDS: MailKind[] = ['confirm', 'signin'];

/** Every http(s) URL in a text, up to a space, a quote or a bracket. */
function urls(text: string): string[] {
  return text.match(/https?:\/\/[^\s"'<>]+/gi) ?? [];
}

describe('composeMail', () => {
  it('names the product in each subject', () => {
    expect(composeMail(input({ productName: 'Acme' })).subject).toBe(
      'Confirm your email address for Acme',
    );
    expect(
      composeMail(input({ kind: 'signin', productName: 'Acme' })).subject,
    ).toBe('Your Acme sign-in link');
  });

  it.each(KINDS)(
    '%s: addresses the recipient, greets by name once the address is confirmed',
    (kind) => {
      const mail = composeMail(input({ kind }));
      expect(mail.to).toBe('ada@example.com');
      expect(mail.from).toBe('"Vigil" <no-reply@vigil.example>');
      expect(mail.text).toContain('Hello Ada,');
      expect(mail.html).toContain('Hello Ada,');
    },
  );

  it.each(KINDS)(
    '%s: to an unconfirmed address (no name given), greets no one by name (issue 46)',
    (kind) => {
      const mail = composeMail(input({ kind, name: null }));
      expect(mail.text.split('\n')[0]).toBe('Hello,');
      expect(mail.html).toContain('>Hello,</p>');
      for (const part of [mail.text, mail.html]) {
        expect(part).not.toMatch(/Hello [^,<]/);
        expect(part).not.toContain('null');
      }
    },
  );

  it.each(KINDS)(
    '%s: holds the link in the text (on its own line) and in the HTML',
    (kind) => {
      const mail = composeMail(input({ kind }));
      expect(mail.text.split('\n')).toContain(LINK);
      expect(mail.html).toContain(`href="${LINK}"`);
    },
  );

  it.each(KINDS)('%s: links to nothing but PUBLIC_URL', (kind) => {
    const mail = composeMail(input({ kind, productName: 'Acme' }));
    const found = [...urls(mail.text), ...urls(mail.html)];
    expect(found.length).toBeGreaterThan(0);
    for (const url of found)
      expect(url.startsWith(`${PUBLIC_URL}/`)).toBe(true);
    // One URL only: the link.
    expect(new Set(found)).toEqual(new Set([LINK]));
  });

  it.each(KINDS)('%s: loads nothing from anywhere', (kind) => {
    const html = composeMail(input({ kind })).html.toLowerCase();
    for (const banned of ['<img', 'url(', '<link', '<script', 'src=']) {
      expect(html).not.toContain(banned);
    }
  });

  it.each(KINDS)('%s: is a whole English document in both schemes', (kind) => {
    const { html } = composeMail(input({ kind }));
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<meta name="color-scheme" content="light dark">');
    expect(html).not.toContain('<style');
  });

  it.each(KINDS)('%s: escapes every value in the HTML', (kind) => {
    const hostile = '<script>alert(1)</script>';
    const mail = composeMail(
      input({ kind, name: hostile, productName: `Acme ${hostile}` }),
    );
    expect(mail.html).not.toContain(hostile);
    expect(mail.html.toLowerCase()).not.toContain('<script');
    expect(mail.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    // The plain text needs no escaping: it shows the name as written.
    expect(mail.text).toContain(`Hello ${hostile},`);
  });

  it.each(KINDS)('%s: silences auto-responders (RFC 3834 §5)', (kind) => {
    const mail = composeMail(input({ kind }));
    expect(mail.headers).toEqual({
      'Auto-Submitted': 'auto-generated',
      'X-Auto-Response-Suppress': 'All',
    });
    expect(mail.messageId).toBe('<vigil-12-1700000000000@vigil.example>');
  });

  it('says how long each link works', () => {
    const confirm = composeMail(input({ kind: 'confirm' }));
    const signin = composeMail(input({ kind: 'signin' }));
    for (const part of [confirm.text, confirm.html]) {
      expect(part).toContain('The link works once, within 24 hours.');
      expect(part).not.toContain('15 minutes');
    }
    for (const part of [signin.text, signin.html]) {
      expect(part).toContain('The link works once, within 15 minutes.');
      expect(part).not.toContain('24 hours');
    }
  });

  it('mentions the newsletter only in a confirm mail that asked for it', () => {
    const sentence = 'Confirming also starts the newsletter you asked for.';
    const asked = composeMail(input({ kind: 'confirm', newsletter: true }));
    expect(asked.text).toContain(sentence);
    expect(asked.html).toContain(sentence);
    for (const mail of [
      composeMail(input({ kind: 'confirm', newsletter: false })),
      composeMail(input({ kind: 'signin', newsletter: true })),
      composeMail(input({ kind: 'signin', newsletter: false })),
    ]) {
      expect(mail.text).not.toContain('newsletter');
      expect(mail.html).not.toContain('newsletter');
    }
  });

  it('names the watched site in a confirm mail, by its host alone and never as a link (issue 58, ADR-0123)', () => {
    const mail = composeMail(
      input({ kind: 'confirm', siteHost: 'shop.example:8443' }),
    );
    const sentence =
      'You created a Vigil account with this email address, to watch shop.example:8443. Confirm the address so that we check the site every minute and send its alerts to you.';
    expect(mail.text).toContain(sentence);
    expect(mail.html).toContain(sentence);
    // The only link is the confirmation's.
    expect(urls(mail.text)).toEqual([LINK]);
    // Without a site, the mail says what it said before.
    expect(
      composeMail(input({ kind: 'confirm', siteHost: null })).text,
    ).toContain(
      'You created a Vigil account with this email address. Confirm the address so that your alerts can be sent to it.',
    );
    // HTML in a host is text, as every value.
    const marked = composeMail(
      input({ kind: 'confirm', siteHost: '<b>x</b>' }),
    );
    expect(marked.html).not.toContain('<b>x</b>');
    expect(marked.text).toContain('to watch <b>x</b>.');
  });

  it('reads the host of a watched site, and nothing of a URL it cannot read', () => {
    expect(watchedHost('https://Shop.Example/cart?x=1#top')).toBe(
      'shop.example',
    );
    expect(watchedHost('http://site.test:8080/site?n=1')).toBe(
      'site.test:8080',
    );
    expect(watchedHost('https://bücher.example/')).toBe(
      'xn--bcher-kva.example',
    );
    expect(watchedHost('not a url')).toBeNull();
    expect(watchedHost(null)).toBeNull();
  });

  it.each(KINDS)('%s: tells a stranger to ignore it', (kind) => {
    const note =
      'If this was not you, ignore this mail: nothing happens unless you press the button on the page the link opens.';
    const mail = composeMail(input({ kind }));
    expect(mail.text).toContain(note);
    expect(mail.html).toContain(note);
  });
});

describe('fromHeader', () => {
  it('gives a bare address the product as its quoted display name', () => {
    expect(fromHeader('no-reply@vigil.example', 'Vigil')).toBe(
      '"Vigil" <no-reply@vigil.example>',
    );
  });

  it('escapes a quote and a backslash in the name (RFC 5322 §3.2.4)', () => {
    expect(fromHeader('no-reply@vigil.example', 'The "Best" Vigil')).toBe(
      '"The \\"Best\\" Vigil" <no-reply@vigil.example>',
    );
    expect(fromHeader('no-reply@vigil.example', 'Back\\slash')).toBe(
      '"Back\\\\slash" <no-reply@vigil.example>',
    );
  });

  it('keeps a line break out of the header', () => {
    expect(fromHeader('no-reply@vigil.example', 'Vigil\r\nBcc: x@y')).toBe(
      '"Vigil Bcc: x@y" <no-reply@vigil.example>',
    );
  });

  it('keeps MAIL_FROM as given when it has a display name', () => {
    expect(fromHeader('Ops <ops@x.example>', 'Vigil')).toBe(
      'Ops <ops@x.example>',
    );
    expect(fromHeader('"Ops, Inc." <ops@x.example>', 'Vigil')).toBe(
      '"Ops, Inc." <ops@x.example>',
    );
  });

  it('names an address in angle brackets without a display name', () => {
    expect(fromHeader('<ops@x.example>', 'Vigil')).toBe(
      '"Vigil" <ops@x.example>',
    );
  });
});

describe('durationInWords', () => {
  it.each([
    [0, '0 seconds'],
    [1_000, '1 second'],
    [59_000, '59 seconds'],
    [60_000, '1 minute'],
    [200_000, '3 minutes'],
    [3_600_000, '1 hour'],
    [3_660_000, '1 hour 1 minute'],
    [26 * 3_600_000, '1 day 2 hours'],
    [2 * 86_400_000, '2 days'],
    [-5_000, '0 seconds'],
  ])('%i ms: %s', (ms, words) => {
    expect(durationInWords(ms)).toBe(words);
  });
});
