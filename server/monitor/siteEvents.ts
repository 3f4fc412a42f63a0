/**
 * A site's events as the monitor queues them (ADR-0105, ADR-0125, ADR-0129):
 * their kinds and the data each carries, which ./alertNotices.ts words.
 */
import type { DownCause } from '../../machines/monitorMachine';

/**
 * A site's event: it went down, or came back up (ADR-0105); it is flapping,
 * or steady again after flapping (ADR-0125).
 */
export type AlertKind = 'down' | 'up' | 'flapping' | 'steady';

/** The deliveries' kinds of a site's events, by alert. */
export const SITE_EVENT_KINDS: Readonly<Record<AlertKind, string>> = {
  down: 'site.down',
  up: 'site.up',
  flapping: 'site.flapping',
  steady: 'site.steady',
};

/**
 * What an alert says, as queued with the state change that caused it:
 * times are ISO 8601.
 */
export interface AlertDetails {
  /** What the owner calls the site; absent: its host (ADR-0127). */
  siteName?: string;
  siteUrl: string;
  /** When the first failed check of the incident ran. */
  startedAt: string;
  /** "down": why, as data (machines/monitorMachine.ts's DownCause). */
  reason?: DownCause;
  /** "up": when the check that found the site up again ran; "steady": when its last incident ended. */
  endedAt?: string;
  /** "flapping": its incidents within the hour; "steady": the times it went down while flapping. */
  incidents?: number;
  /**
   * The monitor (a bigint, as text) and its stop link's token (ADR-0124);
   * absent in alerts queued before them.
   */
  monitorId?: string;
  stopToken?: string;
  /** The incident the event is about (a bigint, as text); absent before ADR-0129. */
  incidentId?: string;
  /** When the check that caused the event ran; absent before ADR-0129. */
  occurredAt?: string;
  /**
   * An e-mail channel's one-click unsubscribe link (RFC 8058), which its
   * delivery carries (the alerts' fan-out adds it); absent otherwise.
   */
  unsubscribeUrl?: string;
}
