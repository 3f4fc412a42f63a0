/**
 * The migrations of the mail feature's tables, by name. Their numbers are one
 * sequence across the service's features (server/schema.ts merges them),
 * and Kysely runs them in the order of their names: a new one takes the
 * next number after the highest of any feature.
 */
import type { Migration } from 'kysely/migration';
import * as m0008MailOutbox from './0008_mail_outbox';
import * as m0009LinkTokens from './0009_link_tokens';
import * as m0013OutboxRetention from './0013_outbox_retention';
import * as m0020MailsInOutbox from './0020_mails_in_outbox';

/** Name → migration. */
export const MAIL_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0008_mail_outbox': m0008MailOutbox,
  '0009_link_tokens': m0009LinkTokens,
  '0013_outbox_retention': m0013OutboxRetention,
  '0020_mails_in_outbox': m0020MailsInOutbox,
};
