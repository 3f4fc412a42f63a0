/**
 * Each HTTP channel's request as its receiver sees it (issue 60, "What to
 * build": a webhook signed with the Standard Webhooks scheme, Slack and
 * Discord "in each one's documented message format", ntfy "with the title,
 * priority and tags headers ntfy documents"; Proof: "tests on loopback for
 * each channel's format and signature (verified with `standardwebhooks`'
 * own `verify`)").
 *
 * A delivery of the test kind is queued with SQL and sent by the outbox's
 * worker through the monitor's SSRF-safe POST to a receiver on 127.0.0.1;
 * every name (`hook.test`, `hooks.slack.com`, `discord.com`, `ntfy.test`)
 * is mapped there by the test's resolver, and the loopback tripwire sees
 * every connection. What arrives is judged against the documented formats
 * and the notice the renderer gave, not against the code's own output.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import {
  startOutboxService,
  startReceiver,
  testNotice,
  webhookSecret,
  type OutboxService,
  type Receiver,
  type SeenRequest,
} from '../support/outboxService';

let outbox: OutboxService;
let receiver: Receiver;
let streams = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  outbox = await startOutboxService({
    names: {
      'hook.test': ['127.0.0.1'],
      'hooks.slack.com': ['127.0.0.1'],
      'discord.com': ['127.0.0.1'],
      'ntfy.test': ['127.0.0.1'],
    },
  });
});

afterAll(async () => {
  await outbox.close();
  await receiver.close();
});

afterEach(() => {
  expect(outbox.tripwire.violations).toEqual([]);
});

/** Sends one delivery and returns the one request its receiver got. */
async function deliverOne(
  channel: 'webhook' | 'slack' | 'discord' | 'ntfy',
  target: string,
  payload: unknown,
  secret: string | null = null,
): Promise<SeenRequest> {
  streams += 1;
  const before = receiver.requests.length;
  const [id = ''] = await outbox.queue([
    { channel, target, secret, stream: `channels:${streams}`, payload },
  ]);
  await outbox.drain();
  const arrived = receiver.requests.slice(before);
  expect(arrived).toHaveLength(1);
  const row = await outbox.row(id);
  expect(row.state).toBe('sent');
  expect(row.last_status).toBe(200);
  const [request] = arrived;
  if (!request) throw new Error('nothing arrived');
  return request;
}

/** Decodes RFC 2047 `=?UTF-8?B?…?=` words (spaces between words dropped). */
function decodeEncodedWords(value: string): string {
  const words = value.split(' ');
  if (!words.every((word) => /^=\?UTF-8\?B\?[A-Za-z0-9+/=]*\?=$/.test(word))) {
    return value;
  }
  return Buffer.concat(
    words.map((word) => Buffer.from(word.slice(10, -2), 'base64')),
  ).toString('utf8');
}

describe('a webhook', () => {
  it('is a POST of the notice’s webhook body, signed so that standardwebhooks’ own verify accepts it', async () => {
    const secret = webhookSecret();
    const notice = testNotice('webhook', {
      webhook: {
        type: 'site.down',
        occurred_at: '2025-03-04T05:06:07.000Z',
        site: { id: '12', name: 'Shop — “café”', url: 'https://shop.example' },
        incident: {
          id: '7',
          started_at: '2025-03-04T05:05:07.000Z',
          ended_at: null,
          reason_code: 'http_status',
          reason: 'it answered HTTP 503',
        },
      },
    });
    const request = await deliverOne(
      'webhook',
      receiver.url('/hooks/in?team=ops'),
      notice,
      secret,
    );
    expect(request.method).toBe('POST');
    expect(request.target).toBe('/hooks/in?team=ops');
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(request.body)).toEqual(notice.webhook);
    // The receiver's check, by the scheme's reference implementation.
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    expect(new Webhook(secret).verify(request.body, headers)).toEqual(
      notice.webhook,
    );
    // A signature is of this body with this secret only.
    expect(() =>
      new Webhook(webhookSecret()).verify(request.body, headers),
    ).toThrow();
    expect(() =>
      new Webhook(secret).verify(`${request.body} `, headers),
    ).toThrow();
    // The spec's id: printable, no spaces; the timestamp: Unix seconds, now.
    expect(headers['webhook-id']).toMatch(/^[\x21-\x7E]+$/);
    expect(
      Math.abs(Number(headers['webhook-timestamp']) - request.at / 1000),
    ).toBeLessThan(60);
    // Sent as the monitor sends (its User-Agent), never compressed.
    expect(request.headers['user-agent']).toBe(outbox.app.monitor.userAgent);
  });
});

describe('Slack', () => {
  it('gets JSON with `text` and `blocks` (Block Kit), mentions and links of the site’s words escaped', async () => {
    const notice = testNotice('slack', {
      subject: 'Down: <!channel> & <https://evil.example|click>',
      paragraphs: ['First <@U123> paragraph.', 'Second & last.'],
    });
    const request = await deliverOne(
      'slack',
      receiver.url('/services/T000/B000/XXXX', 'hooks.slack.com'),
      notice,
    );
    expect(request.method).toBe('POST');
    expect(request.target).toBe('/services/T000/B000/XXXX');
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    const message = JSON.parse(request.body) as {
      text: unknown;
      blocks: { type: string; text?: { type: string; text: string } }[];
    };
    expect(typeof message.text).toBe('string');
    expect(Array.isArray(message.blocks)).toBe(true);
    expect(message.blocks.length).toBeGreaterThan(0);
    for (const block of message.blocks) {
      expect(block.type).toBe('section');
      expect(block.text?.type).toBe('mrkdwn');
    }
    const all = [
      String(message.text),
      ...message.blocks.map((block) => block.text?.text ?? ''),
    ].join('\n');
    // Slack decodes &amp; &lt; &gt; only (its "Escaping text"): the
    // site's words can make no mention and no link.
    expect(all).toContain('&lt;!channel&gt; &amp; &lt;https://evil.example');
    expect(all).not.toContain('<!channel>');
    expect(all).not.toContain('<@U123>');
    expect(all).toContain('First &lt;@U123&gt; paragraph.');
    expect(all).toContain('Second &amp; last.');
    // The link the notice has, as Slack's `<url|label>`.
    expect(all).toContain('<https://vigil.example/sites/slack|Open>');
  });
});

describe('Discord', () => {
  it('gets JSON with `embeds` and `allowed_mentions.parse = []`', async () => {
    const notice = testNotice('discord', {
      subject: 'Down: @everyone shop',
      urgency: 'high',
    });
    const request = await deliverOne(
      'discord',
      receiver.url('/api/webhooks/123/abc', 'discord.com'),
      notice,
    );
    expect(request.method).toBe('POST');
    expect(request.target).toBe('/api/webhooks/123/abc');
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    const message = JSON.parse(request.body) as {
      embeds: {
        title?: string;
        description?: string;
        url?: string;
        color?: number;
      }[];
      allowed_mentions: { parse: unknown[] };
      content?: string;
    };
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(message.embeds).toHaveLength(1);
    const [embed] = message.embeds;
    expect(embed?.title).toBe(notice.subject);
    expect(embed?.description).toBe(notice.paragraphs.join('\n\n'));
    expect(embed?.url).toBe(notice.link.url);
    expect(Number.isInteger(embed?.color)).toBe(true);
  });
});

describe('ntfy', () => {
  it('gets the text as the body, with the Title, Priority and Tags headers ntfy documents', async () => {
    const notice = testNotice('ntfy', {
      subject: 'Down: café ☕ shop',
      urgency: 'high',
      tags: ['rotating_light', 'warning'],
    });
    const request = await deliverOne(
      'ntfy',
      receiver.url('/vigil-alerts', 'ntfy.test'),
      notice,
    );
    expect(request.method).toBe('POST');
    expect(request.target).toBe('/vigil-alerts');
    expect(request.body).toBe(notice.paragraphs.join('\n\n'));
    expect(request.headers['content-type']).toMatch(/^text\/plain/);
    // ntfy reads a non-ASCII header value as RFC 2047 encoded words.
    expect(decodeEncodedWords(String(request.headers['title']))).toBe(
      notice.subject,
    );
    // ntfy's priorities: 1 (min) to 5 (max, "urgent").
    expect(request.headers['priority']).toBe('5');
    expect(request.headers['tags']).toBe('rotating_light,warning');
    expect(request.headers['click']).toBe(notice.link.url);
  });

  it('says a default notice at the default priority, with a plain ASCII title', async () => {
    const notice = testNotice('ntfy-default');
    const request = await deliverOne(
      'ntfy',
      receiver.url('/vigil-alerts', 'ntfy.test'),
      notice,
    );
    expect(request.headers['title']).toBe(notice.subject);
    expect(request.headers['priority']).toBe('3');
    expect(request.headers['tags']).toBe('test_tube');
  });
});
