/**
 * What a feature says in one notification, once, for every channel to lay
 * out in its own format (issue 60, "each feature renders its own words"):
 * the outbox's channels (./channels/) turn a notice into a mail, a Slack
 * or Discord message, an ntfy message, or a signed webhook, and know no
 * feature's words.
 */

/** Which kind of destination a delivery goes to. */
export type ChannelKind = 'email' | 'webhook' | 'slack' | 'discord' | 'ntfy';

/** Every channel kind, in the order forms list them. */
export const CHANNEL_KINDS: readonly ChannelKind[] = [
  'email',
  'webhook',
  'slack',
  'discord',
  'ntfy',
];

/** One notification, in words, and as the webhook's data. */
export interface Notice {
  /**
   * One line: a mail's subject, ntfy's title, the heading of a Slack or
   * Discord message. Plain text, no line break, at most 200 characters.
   */
  subject: string;
  /** The body: paragraphs of plain text, in order (no markup). */
  paragraphs: readonly string[];
  /** The page the notice is about (a site's page), absolute. */
  link?: { label: string; url: string } | undefined;
  /**
   * How loud: `high` for a site that went down (ntfy's priority 5, a red
   * Discord embed), `default`, or `low`.
   */
  urgency: 'high' | 'default' | 'low';
  /** ntfy's tags (its emoji short codes or words), e.g. `rotating_light`. */
  tags: readonly string[];
  /**
   * The webhook's JSON body (docs/contract.md, "Alert webhooks"); null
   * when the notice is never sent to a webhook (a link mail).
   */
  webhook: Readonly<Record<string, unknown>> | null;
  /**
   * Secrets the notice carries (a link's token) that the copy kept of what
   * was sent must not: each is replaced by "…" in the stored copy.
   */
  redact?: readonly string[] | undefined;
  /** What only a mail carries. */
  mail?: {
    /** The greeting's name; null or absent: no name ("Hello,"). */
    greetingName?: string | null | undefined;
    /** A closing paragraph in small print (why this mail came). */
    footer?: string | undefined;
    /** More headers (`List-Unsubscribe`, RFC 8058). */
    headers?: Readonly<Record<string, string>> | undefined;
  };
}
