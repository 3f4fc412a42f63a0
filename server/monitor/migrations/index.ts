/**
 * The migrations of the monitor's tables, by name. Their numbers are one
 * sequence across the service's features (server/schema.ts merges them),
 * and Kysely runs them in the order of their names: a new one takes the
 * next number after the highest of any feature.
 */
import type { Migration } from 'kysely/migration';
import * as m0010SiteMonitor from './0010_site_monitor';
import * as m0012WatchOnceConfirmed from './0012_watch_once_confirmed';
import * as m0014AlertsOff from './0014_alerts_off';
import * as m0015Flapping from './0015_flapping';
import * as m0016ReasonCodes from './0016_reason_codes';
import * as m0017Sites from './0017_sites';

/** Name → migration. */
export const MONITOR_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0010_site_monitor': m0010SiteMonitor,
  '0012_watch_once_confirmed': m0012WatchOnceConfirmed,
  '0014_alerts_off': m0014AlertsOff,
  '0015_flapping': m0015Flapping,
  '0016_reason_codes': m0016ReasonCodes,
  '0017_sites': m0017Sites,
};
