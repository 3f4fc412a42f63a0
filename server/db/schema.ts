/**
 * The tables of the sign-up service as Kysely sees them (the migrations in
 * server/db/migrations/ create them). One schema for both engines: PGlite and
 * a PostgreSQL server (docs/architecture.md, "The sign-up service").
 */
import type { ColumnType, Generated } from 'kysely';
import type {
  ConsentRecordChoice,
  ConsentSource,
} from '../../contract/consentRecord';
import type { DownCause } from '../../machines/monitorMachine';

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
  /** The kept campaign ([D10](../../docs/decisions.md#D10)), ≤ 200 characters; null when none. */
  campaign: string | null;
  created_at: CreatedAt;
  /** When a mailed link proved the address ([D98](../../docs/decisions.md#D98)); null until then. */
  confirmed_at: Timestamp | null;
  /**
   * When the newsletter asked for took effect: the confirmation link's POST
   * (double opt-in, [D99](../../docs/decisions.md#D99)); null while it has not, or none was asked for.
   */
  newsletter_confirmed_at: Timestamp | null;
  /**
   * An account still unconfirmed after this is deleted ([D98](../../docs/decisions.md#D98)); null for
   * accounts made before confirmation existed, which are kept.
   */
  confirm_by: ColumnType<Date | null, never, Date | string | null>;
}

/** The one-time sign-in of a new account ([D45](../../docs/decisions.md#D45)): redeemed once at `/`. */
export interface OneTimeTokensTable {
  /** SHA-256 of the token; the token itself is never stored. */
  token_hash: Uint8Array;
  sid: string;
  account_id: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/** A signed-in browser (`{product}_SESSION`, [D46](../../docs/decisions.md#D46)). */
export interface SessionsTable {
  /** SHA-256 of the cookie's value. */
  session_hash: Uint8Array;
  account_id: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  ended_at: Timestamp | null;
  /**
   * When a sign-in link opened it: its browser read the account's mail
   * ([D112](../../docs/decisions.md#D112)). Null: unproven, ended by the account's next sign-in link.
   */
  proven_at: Timestamp | null;
}

/** One fixed window of the sign-up rate limit per client key ([D39](../../docs/decisions.md#D39)). */
export interface RateLimitWindowsTable {
  key: string;
  hits: number;
  window_ends_at: Timestamp;
}

/**
 * One choice a visitor made ([D65](../../docs/decisions.md#D65)): appended by `POST /2/consent/`, never
 * updated or deleted by the service.
 */
export interface ConsentRecordsTable {
  /** The order of appending (an identity column; a bigint, read as text). */
  id: ColumnType<string, never, never>;
  /** `{product}_CONSENT_ID` of the browser that chose. */
  consent_id: string;
  /** The database's clock when the record was stored. */
  recorded_at: CreatedAt;
  choice: ConsentRecordChoice;
  /** `CONSENT_REVISION` the choice was made under (≥ 1). */
  revision: number;
  source: ConsentSource;
  /** The page's path, without query or fragment; ≤ 2,048 characters. */
  path: string;
  /** The `User-Agent` header, its first 512 characters; null when none. */
  user_agent: string | null;
  /** The client's network: `203.0.113.0/24` or `2001:db8:1::/48`. */
  ip_network: string | null;
}

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

/** The watched site of an account ([D103](../../docs/decisions.md#D103)): its state and next check. */
export interface MonitorsTable {
  /** An identity column; a bigint, read as text. */
  id: ColumnType<string, never, never>;
  account_id: string;
  /** As the visitor gave it, ≤ 2,048 characters. */
  site_url: string;
  /** machines/monitorMachine.ts's state. */
  state: ColumnType<
    MonitorStateName,
    MonitorStateName | undefined,
    MonitorStateName
  >;
  /** The machine's context: the first failed check in a row, its reason. */
  failing_since: Timestamp | null;
  /** jsonb: machines/monitorMachine.ts's DownCause. */
  reason: DownCause | null;
  /**
   * When the next check is due; null while the site waits for its owner's
   * address to be confirmed ([D120](../../docs/decisions.md#D120)).
   */
  next_check_at: ColumnType<
    Date | null,
    Date | string | undefined,
    Date | string | null
  >;
  /** While a check runs: another instance may take the row after this. */
  lease_until: Timestamp | null;
  /** How many claims the row has had: the latest claim's fencing token. */
  claims: ColumnType<number, never, number>;
  /** The latest check's result (server/monitor/check/siteCheck.ts's CheckResult). */
  last_check: ColumnType<unknown, never, string | null>;
  checked_at: Timestamp | null;
  /** The latest "check now" (one a minute, [D106](../../docs/decisions.md#D106)). */
  check_now_at: Timestamp | null;
  /** Since when its alert mail is stopped ([D124](../../docs/decisions.md#D124)); null: it is sent. */
  alerts_stopped_at: Timestamp | null;
  /** Since when it is flapping ([D125](../../docs/decisions.md#D125)); null: it is not. */
  flapping_since: Timestamp | null;
  /** What its owner calls it, ≤ 100 characters; null: its host (D127). */
  name: string | null;
  /** Checked every `interval_factor` × `MONITOR_INTERVAL_SECONDS`: 1, 2, 5, 10, 30 or 60. */
  interval_factor: ColumnType<number, number | undefined, number>;
  /** Since when it is paused: not checked, no alert, no next check (D127). */
  paused_at: Timestamp | null;
  created_at: CreatedAt;
}

/** The state names of machines/monitorMachine.ts, as the table stores them. */
export type MonitorStateName = 'pending' | 'up' | 'suspect' | 'down';

/** One check, kept for a few hours ([D107](../../docs/decisions.md#D107)). */
export interface MonitorChecksTable {
  monitor_id: string;
  checked_at: Timestamp;
  up: boolean;
  status: number | null;
  total_ms: number;
}

/** One monitor's checks of one hour, rolled up ([D107](../../docs/decisions.md#D107)). */
export interface MonitorHoursTable {
  monitor_id: string;
  hour: Timestamp;
  checks: number;
  up: number;
  median_ms: number | null;
  slowest_ms: number | null;
}

/** From the first failed check to the check that found the site up ([D104](../../docs/decisions.md#D104)). */
export interface MonitorIncidentsTable {
  id: ColumnType<string, never, never>;
  monitor_id: string;
  started_at: Timestamp;
  ended_at: Timestamp | null;
  /** jsonb: the DownCause that made the site down. */
  reason: DownCause;
  /** How many times the site went down in it: more than 1 while flapping ([D125](../../docs/decisions.md#D125)). */
  flaps: ColumnType<number, number | undefined, number>;
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
  monitors: MonitorsTable;
  monitor_checks: MonitorChecksTable;
  monitor_hours: MonitorHoursTable;
  monitor_incidents: MonitorIncidentsTable;
  monitor_secrets: MonitorSecretsTable;
}

/** The monitor's keys ([D124](../../docs/decisions.md#D124)): `alerts-off` signs the alert mails' stop links. */
export interface MonitorSecretsTable {
  name: string;
  value: Buffer;
}
