/**
 * A notice as a mail (issue 60): the outbox's e-mail channel lays out any
 * feature's notice the same way. One link, as a button after the first
 * paragraph and as a plain address; nothing else reaches out: no image,
 * no stylesheet, no tracking. The HTML part uses tables and inline styles
 * only, because mail clients drop `<style>` and most CSS layout; its
 * colours are those of common/theme.css's light scheme. Pure: mails from
 * values.
 */
import { escapeHtml } from '../../http/html';
import type { Notice } from '../notice';

/** A mail ready for the transport (nodemailer's message fields). */
export interface ComposedMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** `Auto-Submitted` (RFC 3834 §5) and Exchange's auto-reply switch, and the notice's own. */
  headers: Record<string, string>;
}

/** Whom a mail is from and to, and its id. */
export interface Envelope {
  /** The From header, already formatted by {@link fromHeader}. */
  from: string;
  to: string;
  /** RFC 5322 §3.6.4, with its angle brackets: `<vigil-12-1700000000000@vigil.example>`. */
  messageId: string;
  /** `PRODUCT_NAME`: the mail's heading and signature. */
  productName: string;
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

/**
 * A mail's first line: `Hello ${name},` for a name, and `Hello,` without
 * one. A feature gives a name only once the address is proven: until a
 * link proves it, the name is whatever the visitor typed, and a mail
 * carrying it would carry a stranger's words, signed by our domain, to an
 * inbox that never asked (issue 46).
 *
 * @param name the name, or null; an empty or blank name greets no one by
 *   name either
 */
export function greeting(name: string | null | undefined): string {
  const trimmed = name?.trim() ?? '';
  return trimmed === '' ? 'Hello,' : `Hello ${trimmed},`;
}

function textBody(notice: Notice, productName: string): string {
  const [first = '', ...rest] = notice.paragraphs;
  return [
    greeting(notice.mail?.greetingName),
    '',
    first,
    '',
    ...(notice.link ? [notice.link.url, ''] : []),
    ...rest,
    '',
    ...(notice.mail?.footer ? [notice.mail.footer, ''] : []),
    `— ${productName}`,
    '',
  ].join('\n');
}

function paragraph(text: string, colour: string): string {
  return `<p style="margin:0 0 16px;color:${colour};font-size:16px;line-height:1.5;">${escapeHtml(text)}</p>`;
}

function button(link: NonNullable<Notice['link']>): string {
  const href = escapeHtml(link.url);
  const c = COLOURS;
  return `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 24px;">
<tr><td bgcolor="${c.brand}" style="background-color:${c.brand};border-radius:6px;"><a href="${href}" style="display:inline-block;padding:12px 24px;border-radius:6px;color:${c.onBrand};font-family:${FONT};font-size:16px;font-weight:bold;text-decoration:none;">${escapeHtml(link.label)}</a></td></tr>
</table>
<p style="margin:0 0 16px;color:${c.inkSoft};font-size:14px;line-height:1.5;">Or open this address: <a href="${href}" style="color:${c.brand};word-break:break-all;">${href}</a></p>
`;
}

function htmlBody(notice: Notice, productName: string): string {
  const product = escapeHtml(productName);
  const c = COLOURS;
  const [first = '', ...rest] = notice.paragraphs;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(notice.subject)}</title>
</head>
<body style="margin:0;padding:0;background-color:${c.canvas};color:${c.ink};font-family:${FONT};">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="${c.canvas}" style="background-color:${c.canvas};">
<tr><td align="center" style="padding:24px 12px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:560px;">
<tr><td style="padding:0 4px 16px;font-family:${FONT};font-size:20px;font-weight:bold;color:${c.ink};">${product}</td></tr>
<tr><td bgcolor="${c.paper}" style="background-color:${c.paper};border:1px solid ${c.cardLine};border-radius:10px;padding:28px 24px;font-family:${FONT};">
${paragraph(greeting(notice.mail?.greetingName), c.ink)}
${paragraph(first, c.ink)}
${notice.link ? button(notice.link) : ''}${rest.map((note) => paragraph(note, c.ink)).join('\n')}
${notice.mail?.footer ? paragraph(notice.mail.footer, c.inkSoft) : ''}
<p style="margin:0;color:${c.inkSoft};font-size:16px;line-height:1.5;">— ${product}</p>
</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
}

/**
 * A notice as a mail: the greeting, the first paragraph, the link as a
 * button and as a plain address, the other paragraphs, the footer in
 * softer ink, and the product's signature, in a plain-text and an HTML
 * part that say the same.
 *
 * @param notice what to say (server/outbox/notice.ts)
 * @param envelope whom from and to, the Message-ID and the product
 * @returns the mail's fields; its headers silence auto-responders (RFC
 *   3834 §5) and carry the notice's own (`List-Unsubscribe`). Every value
 *   in the HTML is escaped. Raises nothing.
 */
export function mailOf(notice: Notice, envelope: Envelope): ComposedMail {
  return {
    from: envelope.from,
    to: envelope.to,
    subject: notice.subject,
    text: textBody(notice, envelope.productName),
    html: htmlBody(notice, envelope.productName),
    messageId: envelope.messageId,
    headers: { ...AUTOMATIC_HEADERS, ...notice.mail?.headers },
  };
}
