/**
 * The service's mails: the two transactional ones (the address
 * confirmation after a sign-up, and the sign-in link), each with one link,
 * to the continue page; and the monitor's two alerts (the site is down, it
 * is back up; [D105](../../../docs/decisions.md#D105)), each with one link, to `/`. Nothing else reaches out:
 * no image, no stylesheet, no tracking. The HTML part uses tables and inline styles only, because mail
 * clients drop `<style>` and most CSS layout; its colours are those of
 * common/theme.css's light scheme. Pure: mails from values.
 */
import { escapeHtml } from '../../http/html';
import type { AlertDetails, AlertKind, MailKind } from '../tables';
import {
  describeCause,
  durationInWords,
  momentInWords,
  monitorUserAgent,
} from '../../monitor/words';

export type { AlertKind, MailKind };

/**
 * How long a mailed link works ([D96](../../../docs/decisions.md#D96)): as an SQL interval (server/mail/outbox/mailOutbox.ts
 * stores it so) and in the mail's words.
 */
export const LINK_LIFETIMES: Readonly<
  Record<MailKind, { sql: string; words: string }>
> = {
  confirm: { sql: '24 hours', words: '24 hours' },
  signin: { sql: '15 minutes', words: '15 minutes' },
};

/** Where a mailed link leads: the continue page. */
export const LINK_PATH = '/link';

/**
 * The address a mail's link opens.
 *
 * @param publicUrl `PUBLIC_URL`, an origin without a trailing slash, e.g.
 *   `https://vigil.example`
 * @param token the link's token, base64url (RFC 4648 §5), so it needs no
 *   percent-encoding
 * @returns `${publicUrl}/link?token=${token}`. The token sits in the query
 *   because the request logs drop the query.
 */
export function linkUrl(publicUrl: string, token: string): string {
  return `${publicUrl}${LINK_PATH}?token=${token}`;
}

/** `Name <a@b>` or `<a@b>`: the parts around the angle brackets. */
const ANGLE_ADDRESS = /^(.*?)<([^<>]*)>\s*$/s;

/**
 * The mails' From header.
 *
 * @param mailFrom `MAIL_FROM`: a bare address (`no-reply@vigil.example`),
 *   or one with a display name (`Ops <ops@vigil.example>`)
 * @param productName `PRODUCT_NAME`, the display name for a bare address
 * @returns `mailFrom` as given when it has a display name; otherwise
 *   `"${productName}" <address>`, the name as an RFC 5322 §3.2.4
 *   quoted-string (`"` and `\` escaped with `\`; line breaks, which a
 *   quoted-string cannot hold, become spaces). Raises nothing.
 */
export function fromHeader(mailFrom: string, productName: string): string {
  const given = mailFrom.trim();
  const angled = ANGLE_ADDRESS.exec(given);
  if (angled && angled[1]?.trim()) return given;
  const address = angled ? (angled[2] ?? '').trim() : given;
  const quoted = productName
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\"]/g, (c) => `\\${c}`);
  return `"${quoted}" <${address}>`;
}

/** What a mail is made from. */
export interface MailInput {
  kind: MailKind;
  /** `PRODUCT_NAME`, e.g. "Vigil". */
  productName: string;
  /** `PUBLIC_URL`: an origin without a trailing slash. */
  publicUrl: string;
  /** The From header, already formatted by {@link fromHeader}. */
  from: string;
  /** The recipient's address. */
  recipient: string;
  /**
   * The account holder's name, or null while the address is unconfirmed:
   * the mail then greets no one by name ({@link greeting}).
   */
  name: string | null;
  /** Confirm mails only: the visitor asked for the newsletter. */
  newsletter: boolean;
  /**
   * Confirm mails only: the host of the site the account watches, or null
   * (none, or not readable as a URL): the mail names the host alone, never
   * a path, so that it shows whose sign-up it is without carrying a link
   * of the sign-up's choosing ([D123](../../../docs/decisions.md#D123)).
   */
  siteHost?: string | null;
  /** base64url, 43 characters. */
  token: string;
  /** e.g. `<vigil-12-1700000000000@vigil.example>`. */
  messageId: string;
}

/** A mail ready for the transport (nodemailer's message fields). */
export interface ComposedMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** `Auto-Submitted` (RFC 3834 §5) and Exchange's auto-reply switch. */
  headers: Record<string, string>;
}

/**
 * Marks the mail as sent by a machine, so that out-of-office replies and
 * other auto-responders stay silent: RFC 3834 §5 for most, and
 * `X-Auto-Response-Suppress` for Microsoft Exchange.
 */
const AUTOMATIC_HEADERS: Readonly<Record<string, string>> = {
  'Auto-Submitted': 'auto-generated',
  'X-Auto-Response-Suppress': 'All',
};

/** The colours of common/theme.css's light scheme. */
const COLOURS = {
  canvas: '#f1f5f9',
  paper: '#ffffff',
  cardLine: '#e2e8f0',
  ink: '#0f172a',
  inkSoft: '#475569',
  brand: '#1e40af',
  onBrand: '#ffffff',
} as const;

const FONT =
  "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";

/** The words of one mail, before they become text and HTML. */
interface Wording {
  subject: string;
  /** Why the mail came. */
  reason: string;
  button: string;
  /** After the link: the expiry and, when due, the newsletter. */
  notes: string[];
  /** Why the mail came, at its end, in softer ink. */
  footnote: string;
}

const IGNORE_NOTE =
  'If this was not you, ignore this mail: nothing happens unless you press the button on the page the link opens.';

function wording(input: MailInput): Wording {
  const product = input.productName;
  const expiry = `The link works once, within ${LINK_LIFETIMES[input.kind].words}.`;
  if (input.kind === 'confirm') {
    return {
      footnote: IGNORE_NOTE,
      subject: `Confirm your email address for ${product}`,
      reason: input.siteHost
        ? `You created a ${product} account with this email address, to watch ${input.siteHost}. Confirm the address so that we check the site every minute and send its alerts to you.`
        : `You created a ${product} account with this email address. Confirm the address so that your alerts can be sent to it.`,
      button: 'Confirm your address',
      notes: input.newsletter
        ? [expiry, 'Confirming also starts the newsletter you asked for.']
        : [expiry],
    };
  }
  return {
    footnote: IGNORE_NOTE,
    subject: `Your ${product} sign-in link`,
    reason: `Someone asked to sign in to the ${product} account of this email address.`,
    button: `Sign in to ${product}`,
    notes: [expiry],
  };
}

/** Whom a mail greets, and whose it is. */
interface Addressee {
  name: string | null;
  productName: string;
}

/**
 * A mail's first line: `Hello ${name},` once the address is confirmed, and
 * `Hello,` before. Until a link proves the address, the name is whatever
 * the visitor typed, and a mail carrying it would carry a stranger's words,
 * signed by our domain, to an inbox that never asked (issue 46).
 *
 * @param name the account holder's name, or null (unconfirmed address);
 *   an empty or blank name greets no one by name either
 */
export function greeting(name: string | null): string {
  const trimmed = name?.trim() ?? '';
  return trimmed === '' ? 'Hello,' : `Hello ${trimmed},`;
}

function textBody(input: Addressee, words: Wording, link: string): string {
  return [
    greeting(input.name),
    '',
    words.reason,
    '',
    link,
    '',
    ...words.notes,
    '',
    words.footnote,
    '',
    `— ${input.productName}`,
    '',
  ].join('\n');
}

function paragraph(text: string, colour: string): string {
  return `<p style="margin:0 0 16px;color:${colour};font-size:16px;line-height:1.5;">${escapeHtml(text)}</p>`;
}

function htmlBody(input: Addressee, words: Wording, link: string): string {
  const product = escapeHtml(input.productName);
  const href = escapeHtml(link);
  const c = COLOURS;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(words.subject)}</title>
</head>
<body style="margin:0;padding:0;background-color:${c.canvas};color:${c.ink};font-family:${FONT};">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="${c.canvas}" style="background-color:${c.canvas};">
<tr><td align="center" style="padding:24px 12px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:560px;">
<tr><td style="padding:0 4px 16px;font-family:${FONT};font-size:20px;font-weight:bold;color:${c.ink};">${product}</td></tr>
<tr><td bgcolor="${c.paper}" style="background-color:${c.paper};border:1px solid ${c.cardLine};border-radius:10px;padding:28px 24px;font-family:${FONT};">
${paragraph(greeting(input.name), c.ink)}
${paragraph(words.reason, c.ink)}
<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 24px;">
<tr><td bgcolor="${c.brand}" style="background-color:${c.brand};border-radius:6px;"><a href="${href}" style="display:inline-block;padding:12px 24px;border-radius:6px;color:${c.onBrand};font-family:${FONT};font-size:16px;font-weight:bold;text-decoration:none;">${escapeHtml(words.button)}</a></td></tr>
</table>
<p style="margin:0 0 16px;color:${c.inkSoft};font-size:14px;line-height:1.5;">Or open this address: <a href="${href}" style="color:${c.brand};word-break:break-all;">${href}</a></p>
${words.notes.map((note) => paragraph(note, c.ink)).join('\n')}
${paragraph(words.footnote, c.inkSoft)}
<p style="margin:0;color:${c.inkSoft};font-size:16px;line-height:1.5;">— ${product}</p>
</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
}

/** A mail's parts, from its words and its one link. */
function assemble(
  input: Addressee & { from: string; recipient: string; messageId: string },
  words: Wording,
  link: string,
): ComposedMail {
  return {
    from: input.from,
    to: input.recipient,
    subject: words.subject,
    text: textBody(input, words, link),
    html: htmlBody(input, words, link),
    messageId: input.messageId,
    headers: { ...AUTOMATIC_HEADERS },
  };
}

/**
 * One transactional mail.
 *
 * @param input the mail's kind, the product, the recipient and their
 *   name (null while the address is unconfirmed: no name in the mail), the
 *   newsletter choice (confirm mails only), the link's token
 *   and the Message-ID (RFC 5322 §3.6.4, with its angle brackets)
 * @returns the From, To and Subject, a plain-text and an HTML part that
 *   each hold the one link ({@link linkUrl}) and its lifetime
 *   ({@link LINK_LIFETIMES}), the Message-ID as given, and the headers
 *   that silence auto-responders (RFC 3834 §5). Every value in the HTML
 *   is escaped. Raises nothing.
 */
export function composeMail(input: MailInput): ComposedMail {
  return assemble(input, wording(input), linkUrl(input.publicUrl, input.token));
}

/**
 * The mail as the database keeps it: without the token, which would sign
 * someone in.
 *
 * @param mail a mail from {@link composeMail}
 * @param token the token it carries
 * @returns its subject, text and HTML with every occurrence of the token
 *   replaced by "…"
 * @throws RangeError when the token is empty (there would be nothing to
 *   remove, and a copy would keep the link whole)
 */
export function redactedCopy(
  mail: ComposedMail,
  token: string,
): { subject: string; text: string; html: string } {
  if (token === '') throw new RangeError('redactedCopy: the token is empty');
  const redact = (s: string): string => s.split(token).join('…');
  return {
    subject: redact(mail.subject),
    text: redact(mail.text),
    html: redact(mail.html),
  };
}

/** What an alert is made from ([D105](../../../docs/decisions.md#D105)). */
export interface AlertInput {
  kind: AlertKind;
  /** `PRODUCT_NAME`, e.g. "Vigil". */
  productName: string;
  /** `PUBLIC_URL`: an origin without a trailing slash. */
  publicUrl: string;
  /** The From header, already formatted by {@link fromHeader}. */
  from: string;
  recipient: string;
  /** The account holder's name, or null while the address is unconfirmed. */
  name: string | null;
  /** What the monitor queued with the state change. */
  details: AlertDetails;
  /** e.g. `<vigil-12-1700000000000@vigil.example>`. */
  messageId: string;
}

/**
 * The host of a watched site's URL (`shop.example`, `site.test:8080`), as
 * the WHATWG URL parser reads it, for the confirmation mail and its
 * continue page ([D123](../../../docs/decisions.md#D123)).
 *
 * @returns null when the URL cannot be read: nothing of it is shown
 */
export function watchedHost(siteUrl: string | null): string | null {
  if (siteUrl === null) return null;
  return URL.parse(siteUrl)?.host || null;
}

/**
 * The site as a subject line names it (D127): its name, or its host
 * (the URL as given if unreadable), then its URL: `Shop
 * (https://shop.example)`.
 */
function siteNamed(details: AlertDetails): string {
  const name =
    details.siteName ?? watchedHost(details.siteUrl) ?? details.siteUrl;
  return `${name} (${details.siteUrl})`;
}

function alertWording(input: AlertInput): Wording {
  const { details } = input;
  const product = input.productName;
  const footnote = `You receive this because you asked ${product} to watch ${details.siteUrl}. We send one mail when it goes down and one when it is back, and at most three of each an hour.`;
  if (input.kind === 'flapping') {
    return {
      subject: `Flapping: ${siteNamed(details)}`,
      reason: `${details.siteUrl} has gone down ${details.incidents ?? 4} times within an hour, the latest at ${momentInWords(details.startedAt)}.`,
      button: 'See your site’s checks',
      notes: [
        'So that your inbox does not fill up, we send no more mails about it until it has been steady for 30 minutes. Then one mail says so, with how often it went down meanwhile.',
        'We keep checking it; your account shows what we find.',
      ],
      footnote,
    };
  }
  if (input.kind === 'steady') {
    const times = details.incidents ?? 1;
    return {
      subject: `Steady again: ${siteNamed(details)}`,
      reason: `${details.siteUrl} has answered every check for 30 minutes. While it was flapping, from ${momentInWords(details.startedAt)} to ${momentInWords(details.endedAt ?? details.startedAt)}, it went down ${times} ${times === 1 ? 'time' : 'times'}.`,
      button: 'See your site’s checks',
      notes: [
        'We send one mail when it goes down and one when it is back again.',
      ],
      footnote,
    };
  }
  if (input.kind === 'down') {
    return {
      subject: `Down: ${siteNamed(details)}`,
      reason: `${details.siteUrl} has stopped answering. It failed two checks in a row, the first at ${momentInWords(details.startedAt)}.`,
      button: 'See your site’s checks',
      notes: [
        `What we saw: ${details.reason ? describeCause(details.reason, monitorUserAgent(product, input.publicUrl)).replace(/\.$/, '') : 'the site did not answer'}.`,
        'We keep checking it, and will email you as soon as it answers again.',
      ],
      footnote,
    };
  }
  const endedAt = details.endedAt ?? details.startedAt;
  const length = durationInWords(
    new Date(endedAt).getTime() - new Date(details.startedAt).getTime(),
  );
  return {
    subject: `Back up: ${siteNamed(details)}`,
    reason: `${details.siteUrl} is answering again. It was down for ${length}, from ${momentInWords(details.startedAt)} to ${momentInWords(endedAt)}.`,
    button: 'See your site’s checks',
    notes: ['We keep checking it.'],
    footnote,
  };
}

/**
 * One alert mail ([D105](../../../docs/decisions.md#D105)): the site went down (the reason in plain words,
 * when it started), or came back up (how long it was down).
 *
 * @param input the alert's kind and details, the product, the recipient
 *   and their name (null while the address is unconfirmed), the Message-ID
 * @returns the From, To and Subject (the site's host and what happened), a
 *   plain-text and an HTML part with one link, to `${publicUrl}/`, and the
 *   headers that silence auto-responders (RFC 3834 §5); with the site's
 *   stop token in the details, the stop link at the end and as
 *   `List-Unsubscribe` with `List-Unsubscribe-Post` (RFC 8058, [D124](../../../docs/decisions.md#D124)).
 *   Every value in the HTML is escaped. Raises nothing.
 */
export function composeAlertMail(input: AlertInput): ComposedMail {
  const { monitorId, stopToken } = input.details;
  const words = alertWording(input);
  if (!monitorId || !stopToken) {
    return assemble(input, words, `${input.publicUrl}/`);
  }
  // The off switch (D124): the site's stop link, in the mail and as
  // RFC 8058's one-click List-Unsubscribe, which mail providers POST.
  const stop = `${input.publicUrl}${ALERTS_STOP_PATH}?${new URLSearchParams({ m: monitorId, t: stopToken }).toString()}`;
  const mail = assemble(
    input,
    {
      ...words,
      footnote: `${words.footnote} To stop these mails for this site, open ${stop}`,
    },
    `${input.publicUrl}/`,
  );
  return {
    ...mail,
    headers: {
      ...mail.headers,
      'List-Unsubscribe': `<${stop}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}

/** Where an alert mail's stop link points ([D124](../../../docs/decisions.md#D124)); served by the monitor. */
export const ALERTS_STOP_PATH = '/alerts/stop';
