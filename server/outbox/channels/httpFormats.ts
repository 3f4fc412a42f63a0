/**
 * The requests of the HTTP channels (Slack, Discord, ntfy, a signed
 * webhook): one {@link Notice} laid out as the body and headers each kind
 * of destination expects, following its documentation. Pure: no network
 * here; the caller POSTs the request to the destination's URL.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Notice } from '../notice';

/** One request to POST: its headers (lower or mixed case) and its body. */
export type HttpRequestBody = { headers: Record<string, string>; body: string };

/** What a cut text ends with. */
const ELLIPSIS = '…';

/**
 * A bound on a subject or a link's label (a notice's subject has at most
 * 200 characters; this only guards against a longer one).
 */
const SUBJECT_MAX = 256;
/** Slack's limit on a section's text (Block Kit, "Section block"). */
const SLACK_SECTION_MAX = 3000;
/** Discord's limits on an embed (webhook, "Embed limits"). */
const DISCORD_TITLE_MAX = 256;
const DISCORD_DESCRIPTION_MAX = 4096;
/** ntfy's default `message-size-limit`, in UTF-8 bytes. */
const NTFY_MESSAGE_MAX_BYTES = 4096;
/** RFC 2047 §2: an encoded-word is at most 75 characters. */
const ENCODED_WORD_MAX_BYTES = 45; // 60 base64 characters + `=?UTF-8?B?` + `?=`

/** Discord embed colours by urgency. */
const DISCORD_COLORS: Readonly<Record<Notice['urgency'], number>> = {
  high: 0xd0312d,
  default: 0x2f6feb,
  low: 0x8b949e,
};

/** ntfy priorities by urgency (5 max, 3 default, 2 low). */
const NTFY_PRIORITIES: Readonly<Record<Notice['urgency'], string>> = {
  high: '5',
  default: '3',
  low: '2',
};

/**
 * `text` cut to at most `max` UTF-16 code units, ending with an ellipsis
 * when cut; never splits a surrogate pair. With `entities`, never splits
 * an `&…;` entity either (text escaped for Slack).
 */
function cut(text: string, max: number, entities = false): string {
  if (text.length <= max) return text;
  let kept = text.slice(0, max - ELLIPSIS.length);
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  if (entities) kept = kept.replace(/&[a-z]*$/, '');
  return kept + ELLIPSIS;
}

/** `text` cut to at most `max` UTF-8 bytes, with an ellipsis when cut. */
function cutBytes(text: string, max: number): string {
  if (Buffer.byteLength(text, 'utf8') <= max) return text;
  const room = max - Buffer.byteLength(ELLIPSIS, 'utf8');
  let used = 0;
  let kept = '';
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (used + size > room) break;
    used += size;
    kept += char;
  }
  return kept + ELLIPSIS;
}

/** Slack's escaping of `&`, `<` and `>` (the only three it decodes). */
function slackEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * The Slack incoming-webhook request for a notice
 * (https://api.slack.com/messaging/webhooks, Block Kit).
 *
 * @param notice the notification
 * @returns headers `content-type: application/json`; body the JSON
 *   `{ text, blocks }`: `text` the subject (the fallback for
 *   notifications), `blocks` a section `{ type: 'section', text: { type:
 *   'mrkdwn', text: '*<subject>*\n<paragraphs, blank line between>',
 *   verbatim: true } }`, and when the notice has a link a second section
 *   with `<url|label>` (left out for a URL longer than a section). Every text from the notice has `&`, `<`, `>`
 *   escaped as `&amp;`, `&lt;`, `&gt;` (https://api.slack.com/reference/surfaces/formatting#escaping),
 *   so it cannot make a link or a mention (`<!channel>`); `verbatim: true`
 *   keeps Slack from turning bare names or URLs into mentions or links.
 *   A section's text is cut to Slack's 3000 characters with an ellipsis.
 */
export function slackRequest(notice: Notice): HttpRequestBody {
  const subject = cut(slackEscape(notice.subject), SUBJECT_MAX, true);
  const heading = `*${subject}*`;
  const paragraphs = notice.paragraphs.map(slackEscape).join('\n\n');
  const text =
    paragraphs === ''
      ? heading
      : `${heading}\n${cut(paragraphs, SLACK_SECTION_MAX - heading.length - 1, true)}`;
  const blocks: unknown[] = [
    { type: 'section', text: { type: 'mrkdwn', text, verbatim: true } },
  ];
  if (notice.link) {
    // In `<url|label>`, `|` ends the URL: a URL keeps none of its own.
    const url = slackEscape(notice.link.url.replace(/\|/g, '%7C'));
    const label = cut(slackEscape(notice.link.label), SUBJECT_MAX, true);
    const link = `<${url}|${label}>`;
    // A URL too long for a section is one no browser would open either.
    if (link.length <= SLACK_SECTION_MAX) {
      blocks.push({
        type: 'section',
        text: { type: 'mrkdwn', text: link, verbatim: true },
      });
    }
  }
  return {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: subject, blocks }),
  };
}

/**
 * The Discord execute-webhook request for a notice
 * (https://discord.com/developers/docs/resources/webhook#execute-webhook).
 *
 * @param notice the notification
 * @returns headers `content-type: application/json`; body the JSON
 *   `{ embeds: [{ title, description?, url?, color }], allowed_mentions:
 *   { parse: [] } }`: `title` the subject cut to 256 characters,
 *   `description` the paragraphs joined by a blank line, cut to 4096
 *   (absent when there is none), `url` the link's URL when the notice has
 *   one, `color` 0xD0312D (high), 0x2F6FEB (default) or 0x8B949E (low).
 *   Cuts end with an ellipsis; title and description together stay within
 *   the 6000 characters of an embed
 *   (https://discord.com/developers/docs/resources/message#embed-object-embed-limits).
 *   No `content`: Discord needs it only without embeds. `allowed_mentions`
 *   with an empty `parse` so that a site's text never pings @everyone, a
 *   role or a user.
 */
export function discordRequest(notice: Notice): HttpRequestBody {
  const description = notice.paragraphs.map(discordLiteral).join('\n\n');
  const embed = {
    title: cut(notice.subject, DISCORD_TITLE_MAX),
    ...(description === ''
      ? {}
      : { description: cut(description, DISCORD_DESCRIPTION_MAX) }),
    ...(notice.link ? { url: notice.link.url } : {}),
    color: DISCORD_COLORS[notice.urgency],
  };
  return {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ embeds: [embed], allowed_mentions: { parse: [] } }),
  };
}

/**
 * Text shown as written in a Discord message: every character Discord's
 * markdown reads (emphasis, spoilers, code, quotes, headings, masked links
 * `[text](url)`, mentions `<@…>`) escaped with a backslash, which Discord
 * hides before any punctuation; text from a watched site can then make
 * no link and no mention (`allowed_mentions` already stops the ping).
 */
function discordLiteral(text: string): string {
  return text.replace(/[\\*_~`|>[\]()#<]/g, (char) => `\\${char}`);
}

/**
 * `value` as the ntfy documentation allows a header value
 * (https://docs.ntfy.sh/publish/, "UTF-8 in headers"): line breaks become
 * a space; a value with anything but printable ASCII (or an `=?` that ntfy
 * would read as an encoded-word) becomes RFC 2047 `=?UTF-8?B?…?=` words of
 * at most 75 characters each, split between whole characters and separated
 * by spaces (which the decoder drops between words).
 */
function headerValue(value: string): string {
  const flat = value.replace(/[\r\n]+/g, ' ').trim();
  if (/^[\x20-\x7E]*$/.test(flat) && !flat.includes('=?')) return flat;
  const words: string[] = [];
  let bytes: Buffer[] = [];
  let size = 0;
  const flush = (): void => {
    words.push(`=?UTF-8?B?${Buffer.concat(bytes).toString('base64')}?=`);
    bytes = [];
    size = 0;
  };
  for (const char of flat) {
    const encoded = Buffer.from(char, 'utf8');
    if (size + encoded.length > ENCODED_WORD_MAX_BYTES) flush();
    bytes.push(encoded);
    size += encoded.length;
  }
  if (size > 0) flush();
  return words.join(' ');
}

/**
 * The ntfy publish request for a notice, to POST to the topic's URL
 * (https://docs.ntfy.sh/publish/).
 *
 * @param notice the notification
 * @returns body the paragraphs joined by a blank line, plain text, cut to
 *   ntfy's 4096-byte message limit with an ellipsis (a longer one would
 *   become an attachment); headers `content-type: text/plain;
 *   charset=utf-8`, `Title` (the subject; absent when empty), `Priority`
 *   (`5` high, `3` default, `2` low), `Tags` (the tags joined by `,`;
 *   absent without tags) and `Click` (the link's URL; absent without a
 *   link). Header values are ASCII: one with another character is sent as
 *   RFC 2047 encoded-words, which ntfy decodes; line breaks are removed.
 */
export function ntfyRequest(notice: Notice): HttpRequestBody {
  const headers: Record<string, string> = {
    'content-type': 'text/plain; charset=utf-8',
  };
  const title = headerValue(notice.subject);
  if (title !== '') headers['Title'] = title;
  headers['Priority'] = NTFY_PRIORITIES[notice.urgency];
  const tags = notice.tags.map((tag) => tag.trim()).filter((tag) => tag !== '');
  if (tags.length > 0) headers['Tags'] = headerValue(tags.join(','));
  if (notice.link) headers['Click'] = headerValue(notice.link.url);
  return {
    headers,
    body: cutBytes(notice.paragraphs.join('\n\n'), NTFY_MESSAGE_MAX_BYTES),
  };
}

/**
 * The signed webhook request for a notice, by the Standard Webhooks
 * specification (https://www.standardwebhooks.com, "Signature scheme":
 * HMAC-SHA256 of `<id>.<timestamp>.<body>`, made by the `standardwebhooks`
 * package).
 *
 * @param notice the notification; its `webhook` is the body
 * @param delivery.id the message's id (`webhook-id`), the same on every
 *   retry of one message: printable ASCII without spaces
 * @param delivery.secret the endpoint's secret, `whsec_` + base64 (see
 *   {@link newWebhookSecret})
 * @param delivery.at when the request is signed (`webhook-timestamp`)
 * @returns body `JSON.stringify(notice.webhook)`; headers `content-type:
 *   application/json`, `webhook-id`, `webhook-timestamp` (Unix seconds of
 *   `at`) and `webhook-signature` (`v1,<base64 signature>`)
 * @throws Error when `notice.webhook` is null (a notice never sent to
 *   webhooks), when `id` is empty or not printable ASCII, when `at` is an
 *   invalid date, or (from `standardwebhooks`) when the secret is empty or
 *   not base64
 */
export function webhookRequest(
  notice: Notice,
  { id, secret, at }: { id: string; secret: string; at: Date },
): HttpRequestBody {
  if (notice.webhook === null) {
    throw new Error(
      'This notice has no webhook body: it is never sent to a webhook.',
    );
  }
  if (!/^[\x21-\x7E]+$/.test(id)) {
    throw new Error('A webhook id is printable ASCII without spaces.');
  }
  if (Number.isNaN(at.getTime())) {
    throw new Error('A webhook is signed at a valid date.');
  }
  const body = JSON.stringify(notice.webhook);
  return {
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, body),
    },
    body,
  };
}

/**
 * A new secret for a webhook endpoint, in the Standard Webhooks form
 * (https://www.standardwebhooks.com, "Signature scheme"; what
 * `new Webhook(secret)` reads).
 *
 * @returns `whsec_` + the base64 of 32 random bytes (node:crypto)
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
