/**
 * The outbox's table as Kysely sees it (./migrations/ makes it): one row
 * per delivery of a notice to one destination (ADR-0129).
 */
import type { ColumnType } from 'kysely';
import type { CreatedAt, Timestamp } from '../db/columns';
import type { ChannelKind } from './notice';

/** Where a delivery stands. */
export type DeliveryState = 'pending' | 'sending' | 'sent' | 'dead';

export interface DeliveriesTable {
  /** An identity column; a bigint, read as text. */
  id: ColumnType<string, never, never>;
  /** The notice's kind, rendered by the feature that queued it (`site.down`). */
  kind: string;
  channel: ChannelKind;
  account_id: string;
  /** The channel (a bigint, as text) of its owner feature; null: none (the account's own address). */
  channel_id: string | null;
  /** The address or URL; null once dropped (ADR-0089). */
  target: string | null;
  /** A webhook's signing secret (`whsec_…`); null otherwise and once dropped. */
  secret: string | null;
  /** Deliveries of one stream go in order (`site:12|channel:5`). */
  stream: string;
  /** What the renderer needs (jsonb). */
  payload: ColumnType<unknown, string, string>;
  state: ColumnType<DeliveryState, DeliveryState | undefined, DeliveryState>;
  /** Sends tried so far (the claim counts one). */
  attempts: ColumnType<number, never, number>;
  next_attempt_at: ColumnType<Date, never, Date | string>;
  /** While `sending`: another worker may take the row after this. */
  lease_until: Timestamp | null;
  /** Past this, a failed delivery is dead rather than retried. */
  deadline_at: Timestamp;
  created_at: CreatedAt;
  sent_at: Timestamp | null;
  dead_at: Timestamp | null;
  /** How it was handed over: a mail by SMTP or to a file, a POST. */
  delivered_via: 'smtp' | 'file' | 'http' | null;
  /** The last failure in a few words of ours (never a remote text). */
  last_error: string | null;
  /** The last HTTP status answered. */
  last_status: number | null;
  /** What was sent (its subject and plain text); null before and once dropped. */
  subject: string | null;
  text_body: string | null;
}

/** The tables the outbox owns, by name. */
export interface OutboxTables {
  deliveries: DeliveriesTable;
}
