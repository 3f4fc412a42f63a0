/**
 * The outbox claims the earliest deadline first, in two lanes (issue 60's
 * bench; ADR-0130): an alert (1 hour to arrive) goes before a link mail (72
 * hours) queued earlier, mails and POSTs are claimed apart, each lane
 * from an index of its own pending deliveries in deadline order. Deliveries left
 * `sending` by a worker whose lease ended are found by their own index
 * and made pending again (../deliveries.ts, `reclaimExpired`). Never edited
 * once run; a change is a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('deliveries_due').execute();
  await db.schema
    .createIndex('deliveries_due_mail')
    .on('deliveries')
    .columns(['deadline_at', 'id'])
    .where(sql<boolean>`state = 'pending' and channel = 'email'`)
    .execute();
  await db.schema
    .createIndex('deliveries_due_http')
    .on('deliveries')
    .columns(['deadline_at', 'id'])
    .where(sql<boolean>`state = 'pending' and channel <> 'email'`)
    .execute();
  await db.schema
    .createIndex('deliveries_leased')
    .on('deliveries')
    .column('lease_until')
    .where(sql.ref('state'), '=', 'sending')
    .execute();
}
