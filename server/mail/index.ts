/**
 * Mail ([D95](../../docs/decisions.md#D95) to [D101](../../docs/decisions.md#D101)): the outbox every mail is queued
 * in, the sender that sends it (SMTP, or files without `SMTP_URL`), the
 * confirmation and sign-in links' pages, `/signin` and "Send the link
 * again". A Fastify plugin: it decorates the service with `mail` (wake the
 * sender after a commit that queued a mail) and `mailSender`, registers its
 * routes, gives housekeeping its deletes, and stops the sender when the
 * service closes, after the requests in flight and before the database
 * closes. The rest of the service reaches mail through this file only.
 */
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { mailLinksRepository, type ConfirmationWrite } from './links/mailLinks';
import {
  mailOutboxRepository,
  OUTBOX_ROWS_KEPT_DAYS,
  queueConfirmation,
} from './outbox/mailOutbox';
import { registerMailRoutes } from './links/mailRoutes';
import {
  mailSender,
  type MailOptions,
  type MailSender,
} from './outbox/mailSender';

export { queueConfirmation };
export type { MailOptions } from './outbox/mailSender';
export { MAIL_DIR, mailDirFrom } from './settings';
export { MAIL_MIGRATIONS } from './migrations/index';
export type { MailTables } from './tables';

/** Mail as the rest of the service sees it (`app.mail`). */
export interface MailFeature {
  /** Tells the sender a mail was queued (never waits; no-op without one). */
  wake(): void;
  /**
   * Adds a write to the statement that confirms an address, so that
   * another feature's part in a confirmation commits with it (the
   * monitor's watch, [D120](../../docs/decisions.md#D120)). Register before the service is ready.
   */
  whenConfirmed(write: ConfirmationWrite): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Mail (server/mail/). */
    mail: MailFeature;
    /** The outbox's sender, when the service sends mail (server/mail/outbox/mailSender.ts). */
    mailSender: MailSender | undefined;
  }
}

/** What the plugin needs of the service. */
export interface MailPluginOptions {
  /** `PRODUCT_NAME`: the pages' name and the mails' sender name. */
  productName: string;
  /**
   * How mail is sent. Undefined: mails are queued in the outbox and
   * nothing sends them (tests that are not about mail).
   */
  mail?: MailOptions | undefined;
}

async function mail(
  app: FastifyInstance,
  options: MailPluginOptions,
): Promise<void> {
  const { database } = app;
  const outbox = mailOutboxRepository(database.db);
  const confirmationWrites: ConfirmationWrite[] = [];
  const links = mailLinksRepository(database.db, confirmationWrites);
  const transport = app.outbox.mailTransport;
  const sender =
    options.mail && transport
      ? mailSender(outbox, options.mail, {
          productName: options.productName,
          embedded: database.engine === 'pglite',
          log: app.log,
          transport,
        })
      : undefined;
  const wake = () => sender?.wake();
  // The confirmation mail is queued by the sign-up's own statement (D95).
  app.accounts.onSignUp(queueConfirmation);
  app.decorate('mailSender', sender);
  app.decorate('mail', {
    wake,
    whenConfirmed(write) {
      confirmationWrites.push(write);
    },
  } satisfies MailFeature);

  await registerMailRoutes(app, {
    accounts: app.accounts.repository,
    cookies: app.accounts.cookies,
    outbox,
    links,
    productName: options.productName,
    wakeSender: wake,
  });

  app.housekeeping.add('expired links', () => links.deleteExpired());
  app.housekeeping.add('copies of mails past 7 days', () =>
    outbox.dropOldCopies(),
  );
  app.housekeeping.add(`mails sent past ${OUTBOX_ROWS_KEPT_DAYS} days`, () =>
    outbox.deleteOld(),
  );

  // After the requests in flight are answered (Fastify runs onClose hooks
  // once the server has stopped accepting and finished them): the sends in
  // flight finish and are marked, then the database closes.
  app.addHook('onClose', async () => {
    await sender?.stop();
  });
  if (sender && options.mail?.autoStart !== false) await sender.start();
}

/**
 * Registers mail on the service (see the module comment). Needs the
 * database, housekeeping and accounts.
 */
export const mailPlugin = fastifyPlugin(mail, {
  name: 'mail',
  dependencies: ['database', 'housekeeping', 'accounts', 'outbox'],
});
