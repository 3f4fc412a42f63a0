/**
 * The alert channels' tables as Kysely sees them (./migrations/ makes
 * them; ADR-0129).
 */
import type { ColumnType } from 'kysely';
import type { CreatedAt, Timestamp } from '../db/columns';
import type { ChannelKind } from '../outbox/index';

/** One place an account's alerts go besides its own address. */
export interface AlertChannelsTable {
  /** An identity column; a bigint, read as text. */
  id: ColumnType<string, never, never>;
  account_id: string;
  kind: ChannelKind;
  /** The address or URL: a secret, masked on the pages once saved. */
  target: string;
  /** A webhook's signing secret (`whsec_…`); null for the other kinds. */
  secret: string | null;
  /** Alerts for every site of the account; false: those of `alert_channel_sites`. */
  all_sites: ColumnType<boolean, boolean | undefined, boolean>;
  /** When its address was proven (e-mail), or when it was made (the others); null: nothing is sent yet. */
  confirmed_at: Timestamp | null;
  /** SHA-256 of an e-mail channel's confirmation token, until it is used. */
  confirm_token_hash: Uint8Array | null;
  /** When its confirmation link was made and mailed (it works for 24 hours from then); null for the other kinds. */
  confirm_sent_at: Timestamp | null;
  /** The token of its one-click unsubscribe link (RFC 8058), base64url. */
  unsubscribe_token: string;
  /** Since when its deliveries die; null: it works. */
  failing_since: Timestamp | null;
  /** Its last delivery's error, in our words. */
  last_error: string | null;
  /** Since when nothing is sent to it (a 410, an unsubscribe). */
  disabled_at: Timestamp | null;
  /** Why it is off: it answered 410 Gone, or its address unsubscribed; null while on. */
  disabled_reason: 'gone' | 'unsubscribed' | null;
  /** When a webhook's secret was shown (once, on its page's first view); null: not yet. */
  secret_shown_at: Timestamp | null;
  /** When "Send a test alert" last ran, and its answer in words (≤ 200 characters). */
  last_test_at: Timestamp | null;
  last_test_result: string | null;
  created_at: CreatedAt;
}

/** The sites a narrowed channel alerts for. */
export interface AlertChannelSitesTable {
  channel_id: string;
  monitor_id: string;
}

/** The tables this feature owns, by name. */
export interface AlertsTables {
  alert_channels: AlertChannelsTable;
  alert_channel_sites: AlertChannelSitesTable;
}
