/**
 * Mail (D95 to D101): the link mails (the confirmation a sign-up queues,
 * the sign-in link, "Send the link again"), queued in the outbox of
 * notifications (server/outbox/) and worded here when they are sent; the
 * confirmation and sign-in links' pages, `/signin`. A Fastify plugin: it
 * decorates the service with `mail`, registers its routes and renderer,
 * and gives housekeeping its deletes. The rest of the service reaches mail
 * through this file only.
 */
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { mailLinksRepository, type ConfirmationWrite } from './links/mailLinks';
import {
  LINK_MAIL_KINDS,
  linkMailRenderer,
  mailOutboxRepository,
  queueConfirmation,
} from './outbox/mailOutbox';
import { registerMailRoutes } from './links/mailRoutes';
import type { MailOptions } from './settings';

export { queueConfirmation };
export { MAIL_DIR, mailDirFrom, type MailOptions } from './settings';
export { MAIL_MIGRATIONS } from './migrations/index';
export type { MailTables } from './tables';

/** Mail as the rest of the service sees it (`app.mail`). */
export interface MailFeature {
  /** Tells the outbox a mail was queued (never waits). */
  wake(): void;
  /**
   * Adds a write to the statement that confirms an address, so that
   * another feature's part in a confirmation commits with it (the
   * monitor's watch, D120). Register before the service is ready.
   */
  whenConfirmed(write: ConfirmationWrite): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Mail (server/mail/). */
    mail: MailFeature;
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
  const wake = () => app.outbox.wake();
  // The confirmation mail is queued by the sign-up's own statement (D95).
  app.accounts.onSignUp(queueConfirmation);
  if (options.mail) {
    const render = linkMailRenderer(outbox, {
      productName: options.productName,
      publicUrl: options.mail.publicUrl,
      mailFrom: options.mail.from,
    });
    for (const kind of Object.values(LINK_MAIL_KINDS)) {
      app.outbox.renderer(kind, render);
    }
  }
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
}

/**
 * Registers mail on the service (see the module comment). Needs the
 * database, housekeeping and accounts.
 */
export const mailPlugin = fastifyPlugin(mail, {
  name: 'mail',
  dependencies: ['database', 'housekeeping', 'accounts', 'outbox'],
});
