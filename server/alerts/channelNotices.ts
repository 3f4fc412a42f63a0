/**
 * The alert channels' own notices, in words (ADR-0129): the mail that tells an
 * owner one of their channels fails, the mail that asks an added address
 * to confirm it wants the alerts, and the test alert of "Send a test
 * alert". Pure: notices from values.
 */
import type {
  ChannelKind,
  ClaimedDelivery,
  Notice,
  Renderer,
} from '../outbox/index';
import { CONFIRM_CHANNEL_PATH, channelPath } from './channelPaths';

/** The kind of the mail that asks an added address to confirm it. */
export const CHANNEL_CONFIRM_KIND = 'channel.confirm';
/**
 * How long an added address's confirmation link works, from its mail's
 * queueing; the mail is retried as long, never after (./channels.ts).
 */
export const CONFIRM_LINK_HOURS = 24;

/** What a channel's failure notice was queued with. */
export interface FailingDetails {
  channelId: string;
  channelKind: string;
  /** Its last delivery's error, in our words. */
  error: string;
  /** It answered 410 Gone, and is disabled. */
  gone: boolean;
  /** When its delivery died (ISO 8601). */
  at: string;
}

/** A channel kind as a sentence names it. */
export const KIND_WORDS: Readonly<Record<string, string>> = {
  email: 'email address',
  webhook: 'webhook',
  slack: 'Slack channel',
  discord: 'Discord channel',
  ntfy: 'ntfy topic',
};

/**
 * The notice that a channel fails (or is disabled by a 410).
 *
 * @param details what the failure was queued with
 * @param context the product and `PUBLIC_URL`
 */
export function failingNotice(
  details: FailingDetails,
  context: { productName: string; publicUrl: string },
): Notice {
  const what = KIND_WORDS[details.channelKind] ?? 'alert channel';
  const since = new Date(details.at).toUTCString();
  return {
    subject: details.gone
      ? `Your ${what} is gone: alerts to it are off`
      : `Alerts to your ${what} are failing`,
    paragraphs: [
      details.gone
        ? `Your ${what} answered that it no longer exists (HTTP 410), so ${context.productName} has stopped sending alerts to it.`
        : `${context.productName} could not deliver an alert to your ${what} for an hour, since ${since}. The last error: ${details.error}.`,
      details.gone
        ? 'Add it again once it exists, or remove it.'
        : 'We keep sending its next alerts; fix the channel or remove it. Your own address still gets every alert.',
    ],
    link: {
      label: 'See the channel',
      url: `${context.publicUrl}${channelPath(details.channelId)}`,
    },
    urgency: 'default',
    tags: ['warning'],
    webhook: null,
    mail: {
      footer: `You receive this because you added this channel to your ${context.productName} alerts.`,
    },
  };
}

/** The outbox's renderer of `channel.failing`. */
export function failingRenderer(context: {
  productName: string;
  publicUrl: string;
}): Renderer {
  return (deliveries: readonly ClaimedDelivery[]) =>
    Promise.resolve(
      new Map(
        deliveries.map((delivery) => [
          delivery.id,
          failingNotice(delivery.payload as FailingDetails, context),
        ]),
      ),
    );
}

/** What an e-mail channel's confirmation mail was queued with. */
export interface ConfirmDetails {
  /** The channel (a bigint, as text). */
  channelId: string;
  /**
   * The account that added the address, as its owner's address masked
   * (`a•••@example.com`): who asks, without a name typed by anyone.
   */
  owner: string;
}

/**
 * The mail that asks an added address to confirm it wants the account's
 * alerts (issue 60: "each gets a confirmation link first and nothing else
 * until it is confirmed").
 *
 * @param details what the mail was queued with
 * @param token the raw confirmation token, minted as the mail is sent
 * @param context the product and `PUBLIC_URL`
 * @returns a notice whose one link confirms, for mail only (no webhook body)
 */
export function confirmNotice(
  details: ConfirmDetails,
  token: string,
  context: { productName: string; publicUrl: string },
): Notice {
  const product = context.productName;
  return {
    subject: `Confirm this address for ${product} alerts`,
    paragraphs: [
      `The ${product} account of ${details.owner} wants to send its website alerts to this address: a mail when one of its sites stops answering, and one when it is back. Press the button to agree. The link works for ${CONFIRM_LINK_HOURS} hours.`,
      'Not expecting this? Ignore this mail: nothing more is sent to this address unless it is confirmed.',
    ],
    link: {
      label: 'Confirm this address',
      url: `${context.publicUrl}${CONFIRM_CHANNEL_PATH}?${new URLSearchParams({ token }).toString()}`,
    },
    urgency: 'default',
    tags: [],
    webhook: null,
    // The copy kept of what was sent keeps no working link.
    redact: [token],
    mail: {
      footer: `You receive this because someone added this address to the alerts of a ${product} account.`,
    },
  };
}

/** A token minted for a claimed confirmation mail, as it is stored. */
export interface MintedConfirmation {
  deliveryId: string;
  channelId: string;
  /** When the mail was queued: an older one than the channel's last resend is superseded. */
  createdAt: Date;
  /** The token's SHA-256, as the accounts hash secrets. */
  tokenHash: Buffer;
}

/**
 * The outbox's renderer of `channel.confirm`: a new token for each mail,
 * stored (its hash, on the channel) before it is sent, so that no working
 * link waits in the outbox; a mail whose channel has nothing left to
 * confirm (confirmed, removed, turned off, its link dead, or a newer mail
 * sent for it) is `delivered` without a send.
 *
 * @param mint stores the tokens' hashes; resolves to the delivery ids
 *   whose token is now their channel's (channels.ts's `mintConfirmations`)
 * @param newToken a new random token and its hash (the accounts' secrets)
 * @param context the product and `PUBLIC_URL`
 */
export function confirmRenderer(
  mint: (tokens: readonly MintedConfirmation[]) => Promise<Set<string>>,
  newToken: () => { token: string; hash: Buffer },
  context: { productName: string; publicUrl: string },
): Renderer {
  return async (deliveries: readonly ClaimedDelivery[]) => {
    const minted = deliveries.map((delivery) => ({
      delivery,
      details: delivery.payload as ConfirmDetails,
      ...newToken(),
    }));
    const live = await mint(
      minted.map(({ delivery, details, hash }) => ({
        deliveryId: delivery.id,
        channelId: details.channelId,
        createdAt: delivery.createdAt,
        tokenHash: hash,
      })),
    );
    return new Map(
      minted.map(({ delivery, details, token }) => [
        delivery.id,
        live.has(delivery.id)
          ? confirmNotice(details, token, context)
          : ('delivered' as const),
      ]),
    );
  };
}

/** A site as the test alert's webhook body names it. */
export interface TestSite {
  id: string;
  name: string;
  url: string;
}

/**
 * The test alert of "Send a test alert" (issue 60): it says it is a test
 * of this channel and what real alerts look like.
 *
 * @param context the product, `PUBLIC_URL`, the channel, the account's
 *   first site (the webhook body's `site`; absent: the account has none),
 *   the moment (the body's `occurred_at`) and, for an e-mail channel, its
 *   one-click unsubscribe link (RFC 8058), as its alerts carry it
 * @returns a notice of default urgency, tagged `test_tube`, whose webhook
 *   body is `{"type": "test", "occurred_at", "site"?}` (docs/contract.md,
 *   "Alert webhooks"; no `incident`)
 */
export function testNotice(context: {
  productName: string;
  publicUrl: string;
  channelId: string;
  kind: ChannelKind;
  site: TestSite | undefined;
  at: Date;
  unsubscribeUrl?: string | undefined;
}): Notice {
  const product = context.productName;
  const what = KIND_WORDS[context.kind] ?? 'alert channel';
  const notice: Notice = {
    subject: `Test alert from ${product}`,
    paragraphs: [
      `This is a test of your ${what}, sent from your ${product} account because you pressed “Send a test alert”. Nothing is wrong with your sites.`,
      'Real alerts come the same way: one when a site stops answering, naming it and what we saw, and one when it is back up.',
    ],
    link: {
      label: 'See the channel',
      url: `${context.publicUrl}${channelPath(context.channelId)}`,
    },
    urgency: 'default',
    tags: ['test_tube'],
    webhook: {
      type: 'test',
      occurred_at: context.at.toISOString(),
      ...(context.site && {
        site: {
          id: context.site.id,
          name: context.site.name,
          url: context.site.url,
        },
      }),
    },
  };
  const { unsubscribeUrl } = context;
  return unsubscribeUrl
    ? {
        ...notice,
        mail: {
          footer: `You receive this because this address was added to the alerts of a ${product} account. To stop these mails to this address, open ${unsubscribeUrl}`,
          headers: {
            'List-Unsubscribe': `<${unsubscribeUrl}>`,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          },
        },
      }
    : notice;
}
