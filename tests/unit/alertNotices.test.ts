/**
 * The monitor's alerts in words (server/monitor/alertNotices.ts), as the
 * outbox's mail lays them out for the account's own address (ADR-0105,
 * ADR-0124, ADR-0125, ADR-0126, ADR-0129): judged against what each alert must
 * say, not against their own output.
 */
import { describe, expect, it } from 'vitest';
import {
  alertNotice,
  type AlertDetails,
  type AlertKind,
} from '../../server/monitor/alertNotices';
import { mailOf, type ComposedMail } from '../../server/outbox/index';

const PUBLIC_URL = 'https://vigil.example';

/** What the tests vary of one alert mail. */
interface AlertInput {
  kind: AlertKind;
  productName: string;
  publicUrl: string;
  from: string;
  recipient: string;
  name: string | null;
  details: AlertDetails;
  messageId: string;
}

/** One alert to the account's own address, as the outbox sends it. */
function composeAlertMail(input: AlertInput): ComposedMail {
  return mailOf(
    alertNotice(
      input.kind,
      input.details,
      { owner: true, name: input.name },
      { productName: input.productName, publicUrl: input.publicUrl },
    ),
    {
      from: input.from,
      to: input.recipient,
      messageId: input.messageId,
      productName: input.productName,
    },
  );
}

describe('alert mails (ADR-0105)', () => {
  const started = '2026-11-29T14:02:10.000Z';
  function alert(overrides: Partial<AlertInput> = {}): AlertInput {
    return {
      kind: 'down',
      productName: 'Vigil',
      publicUrl: PUBLIC_URL,
      from: '"Vigil" <alerts@vigil.example>',
      recipient: 'ada@example.com',
      name: 'Ada',
      details: {
        siteUrl: 'https://shop.example/health',
        startedAt: started,
        reason: { code: 'status', status: 503 },
      },
      messageId: '<vigil-40-1700000000000@vigil.example>',
      ...overrides,
    };
  }
  const backUp = (endedAt: string) =>
    alert({
      kind: 'up',
      details: {
        siteUrl: 'https://shop.example/health',
        startedAt: started,
        endedAt,
      },
    });

  it('carries the site’s stop link at its end and as a one-click List-Unsubscribe (RFC 8058, ADR-0124), when the details hold its token', () => {
    const token = 'x'.repeat(43);
    const stop = `${PUBLIC_URL}/alerts/stop?m=42&t=${token}`;
    for (const kind of ['down', 'up'] as const) {
      const mail = composeAlertMail(
        alert({
          kind,
          details: {
            siteUrl: 'https://shop.example/health',
            startedAt: started,
            ...(kind === 'down'
              ? { reason: { code: 'status' as const, status: 503 } }
              : { endedAt: '2026-11-29T14:12:10.000Z' }),
            monitorId: '42',
            stopToken: token,
          },
        }),
      );
      expect(mail.headers['List-Unsubscribe']).toBe(`<${stop}>`);
      expect(mail.headers['List-Unsubscribe-Post']).toBe(
        'List-Unsubscribe=One-Click',
      );
      expect(mail.text).toContain(
        `To stop these mails for this site, open ${stop}`,
      );
      // The auto-responders' headers stay.
      expect(mail.headers['Auto-Submitted']).toBe('auto-generated');
    }
    // An alert queued before the stop links has none.
    const older = composeAlertMail(alert());
    expect(older.headers['List-Unsubscribe']).toBeUndefined();
    expect(older.text).not.toContain('/alerts/stop');
  });

  it('"flapping" says how often the site went down within the hour and that no mail follows until it is steady; "steady" counts the times it went down meanwhile (ADR-0125)', () => {
    const flapping = composeAlertMail(
      alert({
        kind: 'flapping',
        details: {
          siteUrl: 'https://shop.example/health',
          startedAt: started,
          incidents: 4,
        },
      }),
    );
    expect(flapping.subject).toBe(
      'Flapping: shop.example (https://shop.example/health)',
    );
    expect(flapping.text).toContain(
      'https://shop.example/health has gone down 4 times within an hour, the latest at 14:02 UTC on 29 November 2026.',
    );
    expect(flapping.text).toContain('until it has been steady for 30 minutes');
    const steady = composeAlertMail(
      alert({
        kind: 'steady',
        details: {
          siteUrl: 'https://shop.example/health',
          startedAt: started,
          endedAt: '2026-11-29T14:40:10.000Z',
          incidents: 1,
        },
      }),
    );
    expect(steady.subject).toBe(
      'Steady again: shop.example (https://shop.example/health)',
    );
    expect(steady.text).toContain(
      'While it was flapping, from 14:02 UTC on 29 November 2026 to 14:40 UTC on 29 November 2026, it went down 1 time.',
    );
  });

  it('"down" names the site’s host in the subject, the site, the reason and when it started', () => {
    const mail = composeAlertMail(alert());
    expect(mail.subject).toBe(
      'Down: shop.example (https://shop.example/health)',
    );
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain('https://shop.example/health');
      expect(part).toContain('HTTP 503 Service Unavailable');
      expect(part).toContain('14:02 UTC on 29 November 2026');
    }
    expect(mail.to).toBe('ada@example.com');
    expect(mail.text).toContain('Hello Ada,');
  });

  it('names the site by the name its owner gave it, then its URL (ADR-0127)', () => {
    const named = composeAlertMail(
      alert({
        details: {
          siteName: 'Shop',
          siteUrl: 'https://shop.example',
          startedAt: started,
          reason: { code: 'status', status: 503 },
        },
      }),
    );
    expect(named.subject).toBe('Down: Shop (https://shop.example)');
  });

  it('"down" words its reason when the mail is made: a reason kept in words before reason codes is shown as written, and advice ends one sentence', () => {
    const worded = composeAlertMail(
      alert({
        details: {
          siteUrl: 'https://shop.example/health',
          startedAt: started,
          reason: {
            code: 'worded',
            words: 'Refused or unreachable (ECONNREFUSED)',
          },
        },
      }),
    );
    expect(worded.text).toContain(
      'What we saw: Refused or unreachable (ECONNREFUSED).',
    );
    const robots = composeAlertMail(
      alert({
        details: {
          siteUrl: 'https://shop.example/health',
          startedAt: started,
          reason: { code: 'status', status: 403 },
        },
      }),
    );
    expect(robots.text).toContain(
      'What we saw: HTTP 403 Forbidden. The site may be blocking robots: allow the user agent "Vigil-Monitor/1 (+https://vigil.example)" in its firewall or bot protection.\n',
    );
  });

  it('greets no one by name when no name is given (an unconfirmed address)', () => {
    const mail = composeAlertMail(alert({ name: null }));
    expect(mail.text.split('\n')[0]).toBe('Hello,');
    expect(mail.html).toContain('>Hello,</p>');
    expect(`${mail.text}${mail.html}`).not.toContain('null');
  });

  it('"back up" says how long the site was down, from the first failed check', () => {
    const mail = composeAlertMail(backUp('2026-11-29T16:07:40.000Z'));
    expect(mail.subject).toBe(
      'Back up: shop.example (https://shop.example/health)',
    );
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain('It was down for 2 hours 6 minutes');
      expect(part).toContain(
        'from 14:02 UTC on 29 November 2026 to 16:07 UTC on 29 November 2026',
      );
    }
  });

  it.each(['down', 'up'] as const)(
    '%s: links to nothing but PUBLIC_URL’s /, loads nothing, silences auto-responders',
    (kind) => {
      const mail = composeAlertMail(
        kind === 'down' ? alert() : backUp('2026-11-29T14:30:00.000Z'),
      );
      // The watched site is named as text, never as a link.
      expect(mail.html).not.toContain('href="https://shop.example');
      const links = [...mail.html.matchAll(/href="([^"]*)"/g)].map(
        (match) => match[1],
      );
      expect(new Set(links)).toEqual(new Set([`${PUBLIC_URL}/`]));
      expect(mail.text.split('\n')).toContain(`${PUBLIC_URL}/`);
      for (const banned of ['<img', 'url(', '<link', '<script', 'src=']) {
        expect(mail.html.toLowerCase()).not.toContain(banned);
      }
      expect(mail.headers['Auto-Submitted']).toBe('auto-generated');
      expect(mail.messageId).toBe('<vigil-40-1700000000000@vigil.example>');
    },
  );

  it('escapes every value in the HTML', () => {
    const hostile = '<script>alert(1)</script>';
    const mail = composeAlertMail(
      alert({
        name: hostile,
        details: {
          siteUrl: `https://x.example/${hostile}`,
          startedAt: started,
          reason: { code: 'no_such_name', host: hostile },
        },
      }),
    );
    expect(mail.html.toLowerCase()).not.toContain('<script');
    expect(mail.html).toContain('&#60;script&#62;');
  });
});
