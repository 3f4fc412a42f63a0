/**
 * The outbox claims the earliest deadline first (issue 60's bench; D130):
 * an alert (1 hour to arrive) goes before a link mail (72 hours) queued
 * earlier, and a claim reads the due rows in the index's order and stops
 * at its limit instead of sorting every pending row. Deliveries left
 * `sending` by a worker whose lease ended are found by their own index
 * and made pending again (./deliveries.ts, `reclaimExpired`). Never edited
 * once run; a change is a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('deliveries_due').execute();
  await db.schema
    .createIndex('deliveries_due')
    .on('deliveries')
    .columns(['deadline_at', 'id'])
    .where(sql.ref('state'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('deliveries_leased')
    .on('deliveries')
    .column('lease_until')
    .where(sql.ref('state'), '=', 'sending')
    .execute();
}
