/**
 * The migrations of the accounts feature's tables, by name. Their numbers are one
 * sequence across the service's features (server/schema.ts merges them),
 * and Kysely runs them in the order of their names: a new one takes the
 * next number after the highest of any feature.
 */
import type { Migration } from 'kysely/migration';
import * as m0001Accounts from './0001_accounts';
import * as m0002Sessions from './0002_sessions';
import * as m0006ExpiryIndexes from './0006_expiry_indexes';
import * as m0007AddressConfirmation from './0007_address_confirmation';
import * as m0008MailOutbox from './0008_mail_outbox';
import * as m0009LinkTokens from './0009_link_tokens';
import * as m0011ProvenSessions from './0011_proven_sessions';
import * as m0013OutboxRetention from './0013_outbox_retention';
import * as m0020MailsInOutbox from './0020_mails_in_outbox';

/** Name → migration. */
export const ACCOUNTS_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_accounts': m0001Accounts,
  '0002_sessions': m0002Sessions,
  '0006_expiry_indexes': m0006ExpiryIndexes,
  '0007_address_confirmation': m0007AddressConfirmation,
  '0008_mail_outbox': m0008MailOutbox,
  '0009_link_tokens': m0009LinkTokens,
  '0011_proven_sessions': m0011ProvenSessions,
  '0013_outbox_retention': m0013OutboxRetention,
  '0020_mails_in_outbox': m0020MailsInOutbox,
};
