/**
 * The migrations of the outbox's table, by name. Their numbers are one
 * sequence across the service (server/schema.ts merges them).
 */
import type { Migration } from 'kysely/migration';
import * as m0018Deliveries from './0018_deliveries';
import * as m0021EarliestDeadlineFirst from './0021_earliest_deadline_first';

/** Name → migration. */
export const OUTBOX_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0018_deliveries': m0018Deliveries,
  '0021_earliest_deadline_first': m0021EarliestDeadlineFirst,
};
