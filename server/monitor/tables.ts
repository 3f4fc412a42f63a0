/**
 * The monitor's tables as Kysely sees them (./migrations/ makes them):
 * the sites, their checks, hours and incidents, and the monitor's keys.
 */
import type { ColumnType } from 'kysely';
import type { CreatedAt, Timestamp } from '../db/columns';
import type { DownCause } from '../../machines/monitorMachine';

/** The watched site of an account (ADR-0103): its state and next check. */
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
   * address to be confirmed (ADR-0120).
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
  /** The latest "check now" (one a minute, ADR-0106). */
  check_now_at: Timestamp | null;
  /** Since when its alert mail is stopped (ADR-0124); null: it is sent. */
  alerts_stopped_at: Timestamp | null;
  /** Since when it is flapping (ADR-0125); null: it is not. */
  flapping_since: Timestamp | null;
  /** What its owner calls it, ≤ 100 characters; null: its host (ADR-0127). */
  name: string | null;
  /** Checked every `interval_factor` × `MONITOR_INTERVAL_SECONDS`: 1, 2, 5, 10, 30 or 60. */
  interval_factor: ColumnType<number, number | undefined, number>;
  /** Since when it is paused: not checked, no alert, no next check (ADR-0127). */
  paused_at: Timestamp | null;
  created_at: CreatedAt;
}

/** The state names of machines/monitorMachine.ts, as the table stores them. */
export type MonitorStateName = 'pending' | 'up' | 'suspect' | 'down';

/** One check, kept for a few hours (ADR-0107). */
export interface MonitorChecksTable {
  monitor_id: string;
  checked_at: Timestamp;
  up: boolean;
  status: number | null;
  total_ms: number;
}

/** One monitor's checks of one hour, rolled up (ADR-0107). */
export interface MonitorHoursTable {
  monitor_id: string;
  hour: Timestamp;
  checks: number;
  up: number;
  median_ms: number | null;
  slowest_ms: number | null;
}

/** From the first failed check to the check that found the site up (ADR-0104). */
export interface MonitorIncidentsTable {
  id: ColumnType<string, never, never>;
  monitor_id: string;
  started_at: Timestamp;
  ended_at: Timestamp | null;
  /** jsonb: the DownCause that made the site down. */
  reason: DownCause;
  /** How many times the site went down in it: more than 1 while flapping (ADR-0125). */
  flaps: ColumnType<number, number | undefined, number>;
}

/** The monitor's keys (ADR-0124): `alerts-off` signs the alert mails' stop links. */
export interface MonitorSecretsTable {
  name: string;
  value: Buffer;
}

/** The tables this feature owns, by name. */
export interface MonitorTables {
  monitors: MonitorsTable;
  monitor_checks: MonitorChecksTable;
  monitor_hours: MonitorHoursTable;
  monitor_incidents: MonitorIncidentsTable;
  monitor_secrets: MonitorSecretsTable;
}
