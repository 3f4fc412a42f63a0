/**
 * The requests of the HTTP channels (server/outbox/channels/httpFormats.ts),
 * judged against each destination's documented format: Slack's incoming
 * webhook (Block Kit, its escaping and its 3000-character section), Discord's
 * execute-webhook (embed limits, `allowed_mentions`), ntfy's publish headers
 * (RFC 2047 for non-ASCII values), and Standard Webhooks' signature, checked
 * with the `standardwebhooks` package's own verifier and an HMAC computed
 * here from the specification.
 */
import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  discordRequest,
  newWebhookSecret,
  ntfyRequest,
  slackRequest,
  webhookRequest,
} from '../../server/outbox/channels/httpFormats';
import type { Notice } from '../../server/outbox/notice';

/** A site-down notice, with `changes` over it. */
function notice(changes: Partial<Notice> = {}): Notice {
  return {
    subject: 'example.com is down',
    paragraphs: [
      'example.com stopped answering at 10:04 UTC.',
      'We will tell you when it is back.',
    ],
    link: { label: 'Open example.com', url: 'https://vigil.example/sites/7' },
    urgency: 'high',
    tags: ['rotating_light', 'down'],
    webhook: { type: 'site.down', site: 'https://example.com/', at: 1 },
    ...changes,
  };
}

/** The JSON body of a request, as an object. */
function json(body: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(body);
  expect(typeof parsed).toBe('object');
  return parsed as Record<string, unknown>;
}

interface SlackBlock {
  type: string;
  text: { type: string; text: string; verbatim?: boolean };
}

/** A Slack body's fallback text and blocks. */
function slackBody(body: string): { text: string; blocks: SlackBlock[] } {
  return json(body) as { text: string; blocks: SlackBlock[] };
}

/** A Slack body's first section's mrkdwn. */
function slackSection(body: string): string {
  const [first] = slackBody(body).blocks;
  expect(first?.type).toBe('section');
  expect(first?.text.type).toBe('mrkdwn');
  return first?.text.text ?? '';
}

interface DiscordEmbed {
  title: string;
  description?: string;
  url?: string;
  color: number;
}

/** A Discord body's parts. */
function discordBody(body: string): {
  content?: string;
  embeds: DiscordEmbed[];
  allowed_mentions: { parse: unknown[] };
} {
  return json(body) as {
    content?: string;
    embeds: DiscordEmbed[];
    allowed_mentions: { parse: unknown[] };
  };
}

/** A Discord body's one embed. */
function discordEmbed(body: string): DiscordEmbed {
  const { embeds } = discordBody(body);
  expect(embeds).toHaveLength(1);
  const [embed] = embeds;
  if (!embed) throw new Error('no embed');
  return embed;
}

/**
 * A header value decoded as RFC 2047 reads it: `=?UTF-8?B?…?=` words
 * (whitespace between two words dropped), each at most 75 characters.
 */
function decodeRfc2047(value: string): string {
  const words = value.split(' ');
  const bytes = words.map((word) => {
    expect(word.length).toBeLessThanOrEqual(75);
    const match = /^=\?UTF-8\?B\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(word);
    expect(match, word).not.toBeNull();
    return Buffer.from(match?.[1] ?? '', 'base64');
  });
  return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(bytes));
}

/** Printable ASCII only: what an HTTP header value may hold. */
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;

describe('slackRequest', () => {
  it('sends the subject as the fallback text and a mrkdwn section with the bold subject and the paragraphs', () => {
    const request = slackRequest(notice());
    expect(request.headers['content-type']).toBe('application/json');
    const body = slackBody(request.body);
    expect(body.text).toBe('example.com is down');
    expect(body.blocks[0]).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: '*example.com is down*\nexample.com stopped answering at 10:04 UTC.\n\nWe will tell you when it is back.',
        verbatim: true,
      },
    });
  });

  it('links the notice’s page as <url|label>', () => {
    const body = slackBody(slackRequest(notice()).body);
    expect(body.blocks).toHaveLength(2);
    expect(body.blocks[1]?.text).toMatchObject({
      type: 'mrkdwn',
      text: '<https://vigil.example/sites/7|Open example.com>',
    });
  });

  it('has no link block without a link', () => {
    const body = slackBody(slackRequest(notice({ link: undefined })).body);
    expect(body.blocks).toHaveLength(1);
  });

  it('escapes &, < and > in every text from the notice, so that no mention or link can be made', () => {
    const request = slackRequest(
      notice({
        subject: '<!channel> Tom & Jerry > <https://evil.example|click>',
        paragraphs: ['<@U123> was here', 'a <!here> b'],
        link: {
          label: '<!everyone> open',
          url: 'https://vigil.example/sites?a=1&b=2',
        },
      }),
    );
    const body = slackBody(request.body);
    const subject =
      '&lt;!channel&gt; Tom &amp; Jerry &gt; &lt;https://evil.example|click&gt;';
    expect(body.text).toBe(subject);
    expect(slackSection(request.body)).toBe(
      `*${subject}*\n&lt;@U123&gt; was here\n\na &lt;!here&gt; b`,
    );
    expect(body.blocks[1]?.text.text).toBe(
      '<https://vigil.example/sites?a=1&amp;b=2|&lt;!everyone&gt; open>',
    );
    // No < or > left but the link's own brackets.
    expect(body.text).not.toMatch(/[<>]/);
    expect(slackSection(request.body)).not.toMatch(/[<>]/);
  });

  it('cuts a section’s text to 3000 characters with an ellipsis, keeping the subject', () => {
    const request = slackRequest(
      notice({ paragraphs: ['x'.repeat(2000), 'y'.repeat(2000)] }),
    );
    const text = slackSection(request.body);
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(text.length).toBeGreaterThan(2900);
    expect(text.startsWith('*example.com is down*\nxxx')).toBe(true);
    expect(text.endsWith('y…')).toBe(true);
  });

  it('never cuts inside an escape', () => {
    const text = slackSection(
      slackRequest(notice({ paragraphs: ['&'.repeat(3000)] })).body,
    );
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(text).toMatch(/^\*example\.com is down\*\n(&amp;)+…$/);
  });
});

describe('discordRequest', () => {
  it("shows a site's text as written: no masked link, mention, emphasis or heading from it", () => {
    const hostile =
      '[Log in here](https://evil.example) <@&123> **urgent** # Big';
    const { description = '' } = discordEmbed(
      discordRequest(notice({ paragraphs: [hostile] })).body,
    );
    // Discord's markdown: a backslash before punctuation shows it as is.
    for (const syntax of ['[', ']', '(', ')', '<', '*', '#']) {
      expect(description).toContain(`\\${syntax}`);
    }
    expect(description.replace(/\\(.)/g, '$1')).toBe(hostile);
  });

  it('sends one embed with the subject, the paragraphs and the link, and no mentions', () => {
    const request = discordRequest(notice());
    expect(request.headers['content-type']).toBe('application/json');
    const body = discordBody(request.body);
    expect(body.allowed_mentions).toEqual({ parse: [] });
    // Discord needs `content` only when there is no embed.
    expect(body.content ?? '').toBe('');
    expect(discordEmbed(request.body)).toEqual({
      title: 'example.com is down',
      description:
        'example.com stopped answering at 10:04 UTC.\n\nWe will tell you when it is back.',
      url: 'https://vigil.example/sites/7',
      color: 0xd0312d,
    });
  });

  it('colours the embed by urgency', () => {
    const color = (urgency: Notice['urgency']): number =>
      discordEmbed(discordRequest(notice({ urgency })).body).color;
    expect(color('high')).toBe(0xd0312d);
    expect(color('default')).toBe(0x2f6feb);
    expect(color('low')).toBe(0x8b949e);
  });

  it('leaves mentions in a site’s text unparsed', () => {
    const request = discordRequest(
      notice({ subject: '@everyone look', paragraphs: ['<@&123> @here'] }),
    );
    expect(discordBody(request.body).allowed_mentions.parse).toEqual([]);
    expect(discordEmbed(request.body).title).toBe('@everyone look');
  });

  it('cuts the title to 256 and the description to 4096 characters, within the embed’s 6000', () => {
    const embed = discordEmbed(
      discordRequest(
        notice({ subject: 's'.repeat(300), paragraphs: ['d'.repeat(7000)] }),
      ).body,
    );
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(embed.title.endsWith('…')).toBe(true);
    expect(embed.title.startsWith('s'.repeat(200))).toBe(true);
    const description = embed.description ?? '';
    expect(description.length).toBeLessThanOrEqual(4096);
    expect(description.endsWith('…')).toBe(true);
    expect(embed.title.length + description.length).toBeLessThanOrEqual(6000);
  });

  it('does not split a character made of two UTF-16 units when cutting', () => {
    const title = discordEmbed(
      discordRequest(notice({ subject: 'a' + '🚨'.repeat(200) })).body,
    ).title;
    expect(title.length).toBeLessThanOrEqual(256);
    expect(title).toMatch(/^a(🚨)+…$/u);
  });

  it('has no url without a link, and no description without paragraphs', () => {
    const embed = discordEmbed(
      discordRequest(notice({ link: undefined, paragraphs: [] })).body,
    );
    expect(embed).not.toHaveProperty('url');
    expect(embed).not.toHaveProperty('description');
  });
});

describe('ntfyRequest', () => {
  it('sends the paragraphs as plain text and the subject, priority, tags and link as headers', () => {
    expect(ntfyRequest(notice())).toEqual({
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        Title: 'example.com is down',
        Priority: '5',
        Tags: 'rotating_light,down',
        Click: 'https://vigil.example/sites/7',
      },
      body: 'example.com stopped answering at 10:04 UTC.\n\nWe will tell you when it is back.',
    });
  });

  it('maps each urgency to ntfy’s priority', () => {
    const priority = (urgency: Notice['urgency']): string | undefined =>
      ntfyRequest(notice({ urgency })).headers['Priority'];
    expect(priority('high')).toBe('5');
    expect(priority('default')).toBe('3');
    expect(priority('low')).toBe('2');
  });

  it('sends no Tags header without tags, and no Click header without a link', () => {
    const { headers } = ntfyRequest(notice({ tags: [], link: undefined }));
    expect(headers).not.toHaveProperty('Tags');
    expect(headers).not.toHaveProperty('Click');
  });

  it('encodes a non-ASCII title as RFC 2047 and leaves every header ASCII', () => {
    const subject = 'café.example est hors ligne 🚨';
    const { headers } = ntfyRequest(notice({ subject, tags: ['🚨', 'down'] }));
    for (const value of Object.values(headers)) {
      expect(value).toMatch(PRINTABLE_ASCII);
    }
    expect(headers['Title']).toMatch(/^=\?UTF-8\?B\?/);
    expect(decodeRfc2047(headers['Title'] ?? '')).toBe(subject);
    expect(decodeRfc2047(headers['Tags'] ?? '')).toBe('🚨,down');
  });

  it('splits a long non-ASCII title into encoded-words of at most 75 characters', () => {
    const subject = 'Ünïcödé '.repeat(25);
    const title = ntfyRequest(notice({ subject })).headers['Title'] ?? '';
    expect(title.split(' ').length).toBeGreaterThan(1);
    expect(decodeRfc2047(title)).toBe(subject.trim());
  });

  it('removes line breaks from an ASCII title and encodes one with a control character', () => {
    expect(
      ntfyRequest(notice({ subject: 'one\r\ntwo\nthree' })).headers['Title'],
    ).toBe('one two three');
    const title =
      ntfyRequest(notice({ subject: 'bell\u0007here' })).headers['Title'] ?? '';
    expect(title).toMatch(PRINTABLE_ASCII);
    expect(decodeRfc2047(title)).toBe('bell\u0007here');
  });

  it('encodes an ASCII title that ntfy would otherwise decode as an encoded-word', () => {
    const subject = '=?UTF-8?B?aGk=?= is down';
    const title = ntfyRequest(notice({ subject })).headers['Title'] ?? '';
    expect(decodeRfc2047(title)).toBe(subject);
  });

  it('cuts a body longer than ntfy’s 4096-byte message limit', () => {
    const body = ntfyRequest(notice({ paragraphs: ['é'.repeat(3000)] })).body;
    expect(Buffer.byteLength(body, 'utf8')).toBeLessThanOrEqual(4096);
    expect(body).toMatch(/^é+…$/);
  });
});

describe('webhookRequest', () => {
  const secret = `whsec_${Buffer.from('a 32-byte key for the tests only').toString('base64')}`;

  it('signs the webhook body so that the standardwebhooks verifier returns it', () => {
    const sent = notice();
    const request = webhookRequest(sent, {
      id: 'msg_2kx7',
      secret,
      at: new Date(),
    });
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body).toBe(JSON.stringify(sent.webhook));
    expect(new Webhook(secret).verify(request.body, request.headers)).toEqual(
      sent.webhook,
    );
  });

  it('fails verification for a changed body or another secret', () => {
    const request = webhookRequest(notice(), {
      id: 'msg_2kx7',
      secret,
      at: new Date(),
    });
    const changed = request.body.replace('site.down', 'site.up');
    expect(changed).not.toBe(request.body);
    expect(() => new Webhook(secret).verify(changed, request.headers)).toThrow(
      WebhookVerificationError,
    );
    expect(() =>
      new Webhook(newWebhookSecret()).verify(request.body, request.headers),
    ).toThrow(WebhookVerificationError);
  });

  it('sends the id, the Unix seconds of the moment, and the spec’s HMAC-SHA256 of id.timestamp.body', () => {
    const request = webhookRequest(notice(), {
      id: 'msg_2kx7',
      secret,
      at: new Date('2026-01-02T03:04:05.678Z'),
    });
    expect(request.headers['webhook-id']).toBe('msg_2kx7');
    expect(request.headers['webhook-timestamp']).toBe('1767323045');
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key)
      .update(`msg_2kx7.1767323045.${request.body}`)
      .digest('base64');
    expect(request.headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('throws for a notice that is never sent to webhooks', () => {
    expect(() =>
      webhookRequest(notice({ webhook: null }), {
        id: 'msg_1',
        secret,
        at: new Date(),
      }),
    ).toThrow(Error);
  });

  it('throws for an id that cannot be a header value', () => {
    expect(() =>
      webhookRequest(notice(), { id: 'a\r\nb', secret, at: new Date() }),
    ).toThrow(Error);
    expect(() =>
      webhookRequest(notice(), { id: '', secret, at: new Date() }),
    ).toThrow(Error);
  });
});

describe('newWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 bytes, new each time', () => {
    const first = newWebhookSecret();
    const second = newWebhookSecret();
    for (const secret of [first, second]) {
      expect(secret.startsWith('whsec_')).toBe(true);
      const encoded = secret.slice('whsec_'.length);
      expect(encoded).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(encoded, 'base64')).toHaveLength(32);
    }
    expect(first).not.toBe(second);
  });

  it('is a secret the standardwebhooks package signs and verifies with', () => {
    const secret = newWebhookSecret();
    const request = webhookRequest(notice(), {
      id: 'msg_new',
      secret,
      at: new Date(),
    });
    expect(() =>
      new Webhook(secret).verify(request.body, request.headers),
    ).not.toThrow();
  });
});
