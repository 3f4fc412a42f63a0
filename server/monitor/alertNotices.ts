/**
 * The monitor's alerts in words (ADR-0105, ADR-0125, ADR-0126, ADR-0129): what
 * the outbox's deliveries of a site's events say, on every channel. The
 * monitor queues each event with its data ({@link AlertDetails}); the
 * words are made here when a delivery is sent, so that a wording change
 * reaches the alerts not yet sent.
 */
import type { ClaimedDelivery, Notice, Renderer } from '../outbox/index';

import { ALERTS_STOP_PATH, sitePath } from './page';
import {
  SITE_EVENT_KINDS,
  type AlertDetails,
  type AlertKind,
} from './siteEvents';

export { SITE_EVENT_KINDS, type AlertDetails, type AlertKind };
import {
  describeCause,
  durationInWords,
  momentInWords,
  monitorUserAgent,
} from './words';

/** The host of a URL as the WHATWG URL parser reads it; null when unreadable. */
function hostOf(siteUrl: string): string | null {
  return URL.parse(siteUrl)?.host || null;
}

/** The site's name, or its host, or its URL as given (ADR-0127). */
function nameOf(details: AlertDetails): string {
  return details.siteName ?? hostOf(details.siteUrl) ?? details.siteUrl;
}

/** The site as a subject line names it: `Shop (https://shop.example)`. */
function siteNamed(details: AlertDetails): string {
  return `${nameOf(details)} (${details.siteUrl})`;
}

/** The words of one alert, before a channel lays them out. */
interface Words {
  subject: string;
  paragraphs: string[];
}

function wordsOf(
  kind: AlertKind,
  details: AlertDetails,
  userAgent: string,
): Words {
  if (kind === 'flapping') {
    return {
      subject: `Flapping: ${siteNamed(details)}`,
      paragraphs: [
        `${details.siteUrl} has gone down ${details.incidents ?? 4} times within an hour, the latest at ${momentInWords(details.startedAt)}.`,
        'So that your inbox does not fill up, we send no more alerts about it until it has been steady for 30 minutes. Then one alert says so, with how often it went down meanwhile.',
        'We keep checking it; your account shows what we find.',
      ],
    };
  }
  if (kind === 'steady') {
    const times = details.incidents ?? 1;
    return {
      subject: `Steady again: ${siteNamed(details)}`,
      paragraphs: [
        `${details.siteUrl} has answered every check for 30 minutes. While it was flapping, from ${momentInWords(details.startedAt)} to ${momentInWords(details.endedAt ?? details.startedAt)}, it went down ${times} ${times === 1 ? 'time' : 'times'}.`,
        'We send one alert when it goes down and one when it is back again.',
      ],
    };
  }
  if (kind === 'down') {
    return {
      subject: `Down: ${siteNamed(details)}`,
      paragraphs: [
        `${details.siteUrl} has stopped answering. It failed two checks in a row, the first at ${momentInWords(details.startedAt)}.`,
        `What we saw: ${reasonWords(details, userAgent)}.`,
        'We keep checking it, and will alert you as soon as it answers again.',
      ],
    };
  }
  const endedAt = details.endedAt ?? details.startedAt;
  const length = durationInWords(
    new Date(endedAt).getTime() - new Date(details.startedAt).getTime(),
  );
  return {
    subject: `Back up: ${siteNamed(details)}`,
    paragraphs: [
      `${details.siteUrl} is answering again. It was down for ${length}, from ${momentInWords(details.startedAt)} to ${momentInWords(endedAt)}.`,
      'We keep checking it.',
    ],
  };
}

/** A "down"'s reason in words, without its full stop. */
function reasonWords(details: AlertDetails, userAgent: string): string {
  return details.reason
    ? describeCause(details.reason, userAgent).replace(/\.$/, '')
    : 'the site did not answer';
}

/**
 * The webhook's body (docs/contract.md, "Alert webhooks"): a "steady" is
 * the end of the flapping incident, so it is sent as `site.up`.
 */
function webhookBody(
  kind: AlertKind,
  details: AlertDetails,
  userAgent: string,
): Record<string, unknown> {
  return {
    type: kind === 'steady' ? 'site.up' : SITE_EVENT_KINDS[kind],
    occurred_at: details.occurredAt ?? details.endedAt ?? details.startedAt,
    site: {
      id: details.monitorId ?? null,
      name: nameOf(details),
      url: details.siteUrl,
    },
    incident: {
      id: details.incidentId ?? null,
      started_at: details.startedAt,
      ended_at:
        kind === 'down' || kind === 'flapping'
          ? null
          : (details.endedAt ?? null),
      reason_code: details.reason?.code ?? null,
      reason: details.reason ? reasonWords(details, userAgent) : null,
    },
  };
}

/** What the words need of the service. */
export interface AlertWordsContext {
  productName: string;
  /** `PUBLIC_URL`: an origin without a trailing slash. */
  publicUrl: string;
}

/**
 * One alert as a notice, for any channel.
 *
 * @param kind the event
 * @param details what the monitor queued with it
 * @param to whom: the account's own address (with the greeting's name,
 *   null until it is proven, and the site's stop link, ADR-0124, as
 *   RFC 8058's one-click `List-Unsubscribe`), or another channel
 * @returns the notice: subject, paragraphs, the site's page as its link,
 *   the urgency and ntfy tags, and the webhook's body
 */
export function alertNotice(
  kind: AlertKind,
  details: AlertDetails,
  to: { owner: true; name: string | null } | { owner: false },
  context: AlertWordsContext,
): Notice {
  const { productName, publicUrl } = context;
  const userAgent = monitorUserAgent(productName, publicUrl);
  const words = wordsOf(kind, details, userAgent);
  const link = {
    label: 'See your site’s checks',
    url: details.monitorId
      ? `${publicUrl}${sitePath(details.monitorId)}`
      : `${publicUrl}/`,
  };
  const footer = `You receive this because you asked ${productName} to watch ${details.siteUrl}. We send one alert when it goes down and one when it is back, and at most three of each an hour.`;
  const notice: Notice = {
    subject: words.subject,
    paragraphs: words.paragraphs,
    link,
    urgency: kind === 'down' || kind === 'flapping' ? 'high' : 'default',
    tags: [
      kind === 'down'
        ? 'rotating_light'
        : kind === 'flapping'
          ? 'warning'
          : 'white_check_mark',
    ],
    webhook: webhookBody(kind, details, userAgent),
  };
  if (!to.owner) {
    const { unsubscribeUrl } = details;
    return unsubscribeUrl
      ? {
          ...notice,
          mail: {
            footer: `You receive this because this address was added to the alerts of ${details.siteUrl} on ${productName}. To stop these mails to this address, open ${unsubscribeUrl}`,
            headers: {
              'List-Unsubscribe': `<${unsubscribeUrl}>`,
              'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
            },
          },
        }
      : { ...notice, mail: { footer } };
  }
  const { monitorId, stopToken } = details;
  if (!monitorId || !stopToken) {
    return { ...notice, mail: { greetingName: to.name, footer } };
  }
  // The off switch (ADR-0124): the site's stop link, in the mail and as
  // RFC 8058's one-click List-Unsubscribe, which mail providers POST.
  const stop = `${publicUrl}${ALERTS_STOP_PATH}?${new URLSearchParams({ m: monitorId, t: stopToken }).toString()}`;
  return {
    ...notice,
    mail: {
      greetingName: to.name,
      footer: `${footer} To stop these mails for this site, open ${stop}`,
      headers: {
        'List-Unsubscribe': `<${stop}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    },
  };
}

/** The alert kind of a delivery's kind (`site.down` → `down`). */
function alertKindOf(kind: string): AlertKind | undefined {
  const found = Object.entries(SITE_EVENT_KINDS).find(([, k]) => k === kind);
  return found?.[0] as AlertKind | undefined;
}

/**
 * The outbox's renderer of a site's events (`site.down`, …): each
 * delivery's notice; the account's own address is greeted by the
 * account's name once it is proven.
 *
 * @param names the proven names of accounts, by id (the accounts')
 */
export function alertRenderer(
  context: AlertWordsContext,
  names: (
    accountIds: readonly string[],
  ) => Promise<ReadonlyMap<string, string | null>>,
): Renderer {
  return async (deliveries: readonly ClaimedDelivery[]) => {
    const owners = deliveries.filter(
      (delivery) => delivery.channel === 'email' && delivery.channelId === null,
    );
    const known =
      owners.length > 0
        ? await names([...new Set(owners.map((d) => d.accountId))])
        : new Map<string, string | null>();
    const notices = new Map<string, Notice>();
    for (const delivery of deliveries) {
      const kind = alertKindOf(delivery.kind);
      if (!kind) continue;
      const owner = delivery.channel === 'email' && delivery.channelId === null;
      notices.set(
        delivery.id,
        alertNotice(
          kind,
          delivery.payload as AlertDetails,
          owner
            ? { owner: true, name: known.get(delivery.accountId) ?? null }
            : { owner: false },
          context,
        ),
      );
    }
    return notices;
  };
}
