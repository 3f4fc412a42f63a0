/**
 * Proof of consent (ADR-0065): one row per choice a
 * visitor made, appended by `POST /2/consent/` and never updated. No name,
 * no e-mail address, no full IP address: the network (/24 or /48) the
 * choice came from. The limits are written out here, not imported, so that
 * this file keeps meaning what it meant when it ran. Never edited once run;
 * a change is a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('consent_records')
    // The order records were appended in, for two within one clock tick.
    .addColumn('id', 'bigint', (column) =>
      column.primaryKey().generatedAlwaysAsIdentity(),
    )
    .addColumn('consent_id', 'uuid', (column) => column.notNull())
    .addColumn('recorded_at', 'timestamptz', (column) =>
      column.notNull().defaultTo(sql`now()`),
    )
    .addColumn('choice', 'text', (column) => column.notNull())
    .addColumn('revision', 'integer', (column) => column.notNull())
    .addColumn('source', 'text', (column) => column.notNull())
    .addColumn('path', 'text', (column) => column.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('ip_network', 'text')
    .addCheckConstraint(
      'consent_records_choice',
      sql`choice in ('accepted', 'rejected')`,
    )
    .addCheckConstraint('consent_records_revision', sql`revision >= 1`)
    .addCheckConstraint(
      'consent_records_source',
      sql`source in ('modal', 'settings', 'gpc')`,
    )
    .addCheckConstraint(
      'consent_records_path',
      sql`path like '/%' and char_length(path) <= 2048`,
    )
    .addCheckConstraint(
      'consent_records_user_agent_length',
      sql`char_length(user_agent) <= 512`,
    )
    .addCheckConstraint(
      'consent_records_ip_network_length',
      sql`char_length(ip_network) <= 64`,
    )
    .execute();
  await db.schema
    .createIndex('consent_records_consent_id')
    .on('consent_records')
    .columns(['consent_id', 'id'])
    .execute();
}
