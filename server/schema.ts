/**
 * The tables of the sign-up service as Kysely sees them (the migrations in
 * server/migrations/ create them). One schema for both engines: PGlite and
 * a PostgreSQL server (docs/architecture.md, "The sign-up service").
 */
import type { ColumnType, Generated } from 'kysely';

/** A column the database fills in (`default now()`), read as a Date. */
type CreatedAt = ColumnType<Date, never, never>;
/** A timestamp written as an SQL expression (`now() + interval …`). */
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface AccountsTable {
  id: Generated<string>;
  /** Trimmed, 1–200 characters (CHECK). */
  name: string;
  /** As given (trimmed), ≤ 254 characters; unique by `lower(email)`. */
  email: string;
  /** With its protocol, ≤ 2,048 characters; null when none was given. */
  site_url: string | null;
  newsletter: boolean;
  /** The kept campaign (D10), ≤ 200 characters; null when none. */
  campaign: string | null;
  created_at: CreatedAt;
  /** When a mailed link proved the address (D98); null until then. */
  confirmed_at: Timestamp | null;
  /**
   * When the newsletter asked for took effect: the confirmation link's POST
   * (double opt-in, D99); null while it has not, or none was asked for.
   */
  newsletter_confirmed_at: Timestamp | null;
  /**
   * An account still unconfirmed after this is deleted (D98); null for
   * accounts made before confirmation existed, which are kept.
   */
  confirm_by: ColumnType<Date | null, never, Date | string | null>;
}

/** The one-time sign-in of a new account (D45): redeemed once at `/`. */
export interface OneTimeTokensTable {
  /** SHA-256 of the token; the token itself is never stored. */
  token_hash: Uint8Array;
  sid: string;
  account_id: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/** A signed-in browser (`{product}_SESSION`, D46). */
export interface SessionsTable {
  /** SHA-256 of the cookie's value. */
  session_hash: Uint8Array;
  account_id: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  ended_at: Timestamp | null;
}

/** One fixed window of the sign-up rate limit per client key (D39). */
export interface RateLimitWindowsTable {
  key: string;
  hits: number;
  window_ends_at: Timestamp;
}

/**
 * One choice a visitor made (D65): appended by `POST /2/consent/`, never
 * updated or deleted by the service.
 */
export interface ConsentRecordsTable {
  /** The order of appending (an identity column; a bigint, read as text). */
  id: ColumnType<string, never, never>;
  /** `{product}_CONSENT_ID` of the browser that chose. */
  consent_id: string;
  /** The database's clock when the record was stored. */
  recorded_at: CreatedAt;
  choice: 'accepted' | 'rejected';
  /** `CONSENT_REVISION` the choice was made under (≥ 1). */
  revision: number;
  source: 'modal' | 'settings' | 'gpc';
  /** The page's path, without query or fragment; ≤ 2,048 characters. */
  path: string;
  /** The `User-Agent` header, its first 512 characters; null when none. */
  user_agent: string | null;
  /** The client's network: `203.0.113.0/24` or `2001:db8:1::/48`. */
  ip_network: string | null;
}

/** Why a mail is sent: to confirm the address, or to sign in (D96). */
export type MailKind = 'confirm' | 'signin';

/** One mail of the transactional outbox (D95). */
export interface MailOutboxTable {
  /** An identity column; a bigint, read as text. */
  id: ColumnType<string, never, never>;
  kind: MailKind;
  account_id: string;
  /** The address when queued; null once the copy is dropped (D89). */
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
}

/** The token of a mailed link, made when the mail is sent (D96). */
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

/** Every table, by name. */
export interface Schema {
  accounts: AccountsTable;
  one_time_tokens: OneTimeTokensTable;
  sessions: SessionsTable;
  rate_limit_windows: RateLimitWindowsTable;
  consent_records: ConsentRecordsTable;
  mail_outbox: MailOutboxTable;
  link_tokens: LinkTokensTable;
}
