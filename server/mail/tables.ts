/**
 * The mail feature's tables as Kysely sees them (./migrations/ makes
 * them): the outbox, and the tokens of mailed links.
 */
import type { ColumnType } from 'kysely';
import type { CreatedAt, Timestamp } from '../db/columns';

/** Why a link mail is sent: to confirm the address, or to sign in ([D96](../../docs/decisions.md#D96)). */
export type MailKind = 'confirm' | 'signin';

/**
 * Every kind of mail the outbox has carried: the link mails, and the
 * alerts it carried before the outbox of notifications took them
 * (server/outbox/, D129), whose sent rows stay as their record.
 */
export type OutboxKind = MailKind | 'down' | 'up' | 'flapping' | 'steady';

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
  /** An alert's details, in rows kept from before D129; null for link mails. */
  details: ColumnType<unknown, string | null | undefined, string | null>;
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
