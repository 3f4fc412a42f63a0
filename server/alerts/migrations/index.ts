/**
 * The migrations of the alert channels' tables, by name. Their numbers are
 * one sequence across the service (server/schema.ts merges them).
 */
import type { Migration } from 'kysely/migration';
import * as m0019AlertChannels from './0019_alert_channels';
import * as m0022ConfirmLinkSent from './0022_confirm_link_sent';

/** Name → migration. */
export const ALERTS_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0019_alert_channels': m0019AlertChannels,
  '0022_confirm_link_sent': m0022ConfirmLinkSent,
};
