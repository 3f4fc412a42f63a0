/**
 * An added address's confirmation link can be sent again (issue 60): the
 * link works for 24 hours from its mail (`confirm_sent_at`), no longer
 * from the channel's making, since "Send the link again" makes a new one
 * (and the old one works no more). The channels waiting now keep the
 * time their link was made: the channel's. Never edited once run; a
 * change is a new file.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('alert_channels')
    .addColumn('confirm_sent_at', 'timestamptz')
    .execute();
  await sql`update alert_channels set confirm_sent_at = created_at
             where confirm_token_hash is not null`.execute(db);
}
