/**
 * The mail feature's tables as Kysely sees them (./migrations/ makes
 * them): the tokens of mailed links. The mails themselves are the outbox's
 * deliveries (server/outbox/, migration 0020).
 */
import type { CreatedAt, Timestamp } from '../db/columns';

/** Why a link mail is sent: to confirm the address, or to sign in ([D96](../../docs/decisions.md#D96)). */
export type MailKind = 'confirm' | 'signin';

/** The token of a mailed link, made when the mail is sent ([D96](../../docs/decisions.md#D96)). */
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
export interface MailTables {
  link_tokens: LinkTokensTable;
}
