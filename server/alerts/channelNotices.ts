/**
 * The alert channels' own notices, in words: the mail that tells an owner
 * one of their channels fails (D129).
 */
import type { ClaimedDelivery, Notice, Renderer } from '../outbox/index';
import { channelPath } from './channelPaths';

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
