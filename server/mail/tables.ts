/**
 * The mail feature's tables as Kysely sees them (./migrations/ makes
 * them): the outbox, and the tokens of mailed links.
 */
import type { ColumnType } from 'kysely';
import type { CreatedAt, Timestamp } from '../db/columns';
import type { DownCause } from '../../machines/monitorMachine';

/** Why a link mail is sent: to confirm the address, or to sign in ([D96](../../docs/decisions.md#D96)). */
export type MailKind = 'confirm' | 'signin';

/**
 * An alert about the watched site: it went down, or came back up
 * ([D105](../../docs/decisions.md#D105)); it is flapping, or steady again after flapping ([D125](../../docs/decisions.md#D125)).
 */
export type AlertKind = 'down' | 'up' | 'flapping' | 'steady';

/** Every kind of mail the outbox carries. */
export type OutboxKind = MailKind | AlertKind;

/**
 * What an alert mail says, as queued with the state change that caused it
 * (server/monitor/): times are ISO 8601.
 */
export interface AlertDetails {
  /** What the owner calls the site; absent: its host (D127). */
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
   * The monitor (a bigint, as text) and its stop link's token
   * ([D124](../../docs/decisions.md#D124)); absent in alerts queued before them.
   */
  monitorId?: string;
  stopToken?: string;
}

/** One mail of the transactional outbox ([D95](../../docs/decisions.md#D95)). */
export interface MailOutboxTable {
  /** An identity column; a bigint, read as text. */
  id: ColumnType<string, never, never>;
  kind: OutboxKind;
  account_id: string;
  /** The address when queued; null once the copy is dropped ([D89](../../docs/decisions.md#D89)). */
  recipient: string | null;
  state: ColumnType<
    'pending' | 'sending' | 'sent' | 'failed',
    'pending' | undefined,
    'pending' | 'sending' | 'sent' | 'failed'
  >;
  /** Sends tried so far (the claim counts one). */
  attempts: ColumnType<number, never, number>;
  next_attempt_at: ColumnType<Date, never, Date | string>;
  /** While `sending`: another sender may take the row after this. */
  lease_until: Timestamp | null;
  created_at: CreatedAt;
  sent_at: Timestamp | null;
  failed_at: Timestamp | null;
  delivered_via: 'smtp' | 'file' | null;
  /** The SMTP reply code and command, or the error code: never its text. */
  last_error: string | null;
  /**
   * What was sent (its subject and plain-text part), with the link's token
   * left out; null before sending and once dropped.
   */
  subject: string | null;
  text_body: string | null;
  /** An alert's details; null for link mails, and once dropped ([D89](../../docs/decisions.md#D89)). */
  details: ColumnType<
    AlertDetails | null,
    AlertDetails | string | null | undefined,
    AlertDetails | string | null
  >;
}

/** The token of a mailed link, made when the mail is sent ([D96](../../docs/decisions.md#D96)). */
export interface LinkTokensTable {
  /** SHA-256 of the token; the token itself is never stored. */
  token_hash: Uint8Array;
  purpose: MailKind;
  account_id: string;
  /** The mail that carries it; a bigint, read as text. */
  outbox_id: string | null;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/** The tables this feature owns, by name. */
export interface MailTables {
  mail_outbox: MailOutboxTable;
  link_tokens: LinkTokensTable;
}
