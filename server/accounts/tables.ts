/**
 * The accounts feature's tables as Kysely sees them (./migrations/ makes
 * them): accounts, the first sign-in's one-time tokens, sessions, and the
 * tokens of magic links. The link mails themselves are the outbox's
 * deliveries (server/outbox/, migration 0020).
 */
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Timestamp } from '../db/columns';

export interface AccountsTable {
  id: Generated<string>;
  /** Trimmed, 1–200 characters (CHECK). */
  name: string;
  /** As given (trimmed), ≤ 254 characters; unique by `lower(email)`. */
  email: string;
  /** With its protocol, ≤ 2,048 characters; null when none was given. */
  site_url: string | null;
  newsletter: boolean;
  /** The kept campaign (ADR-0010), ≤ 200 characters; null when none. */
  campaign: string | null;
  created_at: CreatedAt;
  /** When a magic link proved the address (ADR-0098); null until then. */
  confirmed_at: Timestamp | null;
  /**
   * When the newsletter asked for took effect: the confirmation link's POST
   * (double opt-in, ADR-0099); null while it has not, or none was asked for.
   */
  newsletter_confirmed_at: Timestamp | null;
  /**
   * An account still unconfirmed after this is deleted (ADR-0098); null for
   * accounts made before confirmation existed, which are kept.
   */
  confirm_by: ColumnType<Date | null, never, Date | string | null>;
}

/** The one-time sign-in of a new account (ADR-0045): redeemed once at `/`. */
export interface OneTimeTokensTable {
  /** SHA-256 of the token; the token itself is never stored. */
  token_hash: Uint8Array;
  sid: string;
  account_id: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/** A signed-in browser (`{product}_SESSION`, ADR-0046). */
export interface SessionsTable {
  /** SHA-256 of the cookie's value. */
  session_hash: Uint8Array;
  account_id: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  ended_at: Timestamp | null;
  /**
   * When a sign-in link opened it: its browser read the account's mail
   * (ADR-0112). Null: unproven, ended by the account's next sign-in link.
   */
  proven_at: Timestamp | null;
}

/** Why a link mail is sent: to confirm the address, or to sign in (ADR-0096). */
export type MailKind = 'confirm' | 'signin';

/** The token of a magic link, made when the mail is sent (ADR-0096). */
export interface LinkTokensTable {
  /** SHA-256 of the token; the token itself is never stored. */
  token_hash: Uint8Array;
  purpose: MailKind;
  account_id: string;
  /** The outbox's delivery that carries it (server/outbox/); a bigint, read as text. */
  outbox_id: string | null;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/** The tables this feature owns, by name. */
export interface AccountsTables {
  accounts: AccountsTable;
  one_time_tokens: OneTimeTokensTable;
  sessions: SessionsTable;
  link_tokens: LinkTokensTable;
}
