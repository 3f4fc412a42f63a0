/**
 * Accounts, sessions, the service's cookies and the first sign-in (ADR-0044 to
 * ADR-0046, ADR-0110, ADR-0112), and the address proven and
 * sign-in by a magic link (ADR-0095 to ADR-0101): the link mails (the
 * confirmation a sign-up queues, the sign-in link, "Send the link again"),
 * queued in the outbox of notifications (server/outbox/) and worded here when
 * they are sent (./linkMails/), and the links' tokens and pages, `/signin`
 * (./links/). As a Fastify plugin: it decorates the service with
 * `accounts` (the repository, the cookies, the signed-in account of a
 * request, the list where other features add their parts of `/`: the
 * sites, where the alerts go, and the writes of a confirmation), registers
 * `/`, the sign-outs, the account page's stylesheet, `/signin` and the
 * links' routes, and the link mails' renderer, and gives housekeeping its
 * deletes. The rest of the service reaches accounts through this file only.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { AccountPageParts } from './accountPage';
import {
  accountsRepository,
  type AccountsRepository,
  type AccountView,
  type SignUpWrite,
} from './accounts';
import {
  LINK_MAIL_KINDS,
  linkMailRenderer,
  linkMailsRepository,
  queueConfirmation,
} from './linkMails/linkMails';
import { linksRepository, type ConfirmationWrite } from './links/links';
import { registerLinkRoutes } from './links/linkRoutes';
import { serviceCookies, type ServiceCookies } from './sessionCookies';
import { registerSignInRoutes } from './signInRoutes';

export {
  RESEND_PATH,
  SIGN_IN_PATH,
  type AccountPageParts,
  type AccountPageSection,
} from './accountPage';
export {
  accountConfirmed,
  AccountLimitError,
  accountView,
  lockAccount,
  provenAddress,
  SESSION_LIFETIME_DAYS,
  type AccountRow,
  type AccountsRepository,
  type AccountView,
  type SignUpDatabase,
  type SignUpWrite,
} from './accounts';
export { newSecret, secretHash } from './secrets';
export { queueConfirmation };
export type { ConfirmationWrite };
export { ACCOUNTS_MIGRATIONS } from './migrations/index';
export type { AccountsTables } from './tables';
export type { ServiceCookies } from './sessionCookies';

/** Accounts as the rest of the service sees them (`app.accounts`). */
export interface AccountsFeature {
  repository: AccountsRepository;
  /** The service's cookies: names, attributes, setting and clearing. */
  cookies: ServiceCookies;
  /** The account of a request's session, or null. */
  signedInAccount(request: FastifyRequest): Promise<AccountView | null>;
  /**
   * Adds a part to what `/` shows of a signed-in account (the monitor's
   * sites, the alerts' channels): the parts' sections follow the account's
   * details in the order they were added, and "What happens next" takes
   * its first step from the first part that gives one (the sites').
   * Register when the plugin registers, before the service is ready.
   */
  showOnAccountPage(parts: AccountPageParts): void;
  /**
   * Adds a feature's rows to the sign-up's one statement (the monitor's
   * first site; the confirmation mail is accounts' own): a data-modifying
   * CTE that reads the CTE `account`, the account being made. Register
   * when the plugin registers, before the service is ready.
   */
  onSignUp<Tables>(write: SignUpWrite<Tables>): void;
  /**
   * Adds a write to the statement that confirms an address, so that
   * another feature's part in a confirmation commits with it (the
   * monitor's watch, ADR-0120). Register before the service is ready.
   */
  whenConfirmed(write: ConfirmationWrite): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Accounts, sessions and cookies (server/accounts/). */
    accounts: AccountsFeature;
  }
}

/** What the plugin needs of the service. */
export interface AccountsPluginOptions {
  /** `PRODUCT_NAME`: the cookies' prefix and the page's name. */
  productName: string;
  /** `PUBLIC_URL`: https makes the cookies Secure and `__Host-`. */
  publicUrl: string;
  /** `COOKIE_DOMAIN`: planted cookies cleared with this `Domain=` too. */
  cookieDomain?: string | undefined;
  /**
   * How the link mails are worded when the outbox sends them: the
   * `PUBLIC_URL` their links are built on (the mail options'). Undefined:
   * mail is not sent, and they are only queued (tests that are not about
   * mail).
   */
  linkMails?: { publicUrl: string } | undefined;
}

async function accounts(
  app: FastifyInstance,
  options: AccountsPluginOptions,
): Promise<void> {
  const repository = accountsRepository(app.database.db);
  const cookies = serviceCookies({
    publicUrl: options.publicUrl,
    productName: options.productName,
    cookieDomain: options.cookieDomain,
  });
  const pageParts: AccountPageParts[] = [];
  const confirmationWrites: ConfirmationWrite[] = [];
  const links = linksRepository(app.database.db, confirmationWrites);
  const linkMails = linkMailsRepository(app.database.db);
  // What this feature queues is mail (sign-in links, confirmations).
  const wake = () => app.outbox.wake('email');
  /** Every part's section, in order, and the first one's first step. */
  const allParts: AccountPageParts = async (accountId, query) => {
    const shown = (
      await Promise.all(pageParts.map((part) => part(accountId, query)))
    ).filter((part) => part !== null);
    if (shown.length === 0) return null;
    return {
      section: shown.map((part) => part.section).join(''),
      firstStep: shown.find((part) => part.firstStep !== undefined)?.firstStep,
    };
  };
  app.decorate('accounts', {
    repository,
    cookies,
    async signedInAccount(request) {
      const session = request.cookies[cookies.session];
      return session ? repository.findBySession(session) : null;
    },
    showOnAccountPage(parts) {
      pageParts.push(parts);
    },
    onSignUp(write) {
      repository.onSignUp(write);
    },
    whenConfirmed(write) {
      confirmationWrites.push(write);
    },
  } satisfies AccountsFeature);

  // The confirmation mail is queued by the sign-up's own statement (ADR-0095).
  repository.onSignUp(queueConfirmation);
  if (options.linkMails) {
    const render = linkMailRenderer(linkMails, {
      productName: options.productName,
      publicUrl: options.linkMails.publicUrl,
    });
    for (const kind of Object.values(LINK_MAIL_KINDS)) {
      app.outbox.renderer(kind, render);
    }
  }

  await registerSignInRoutes(app, {
    accounts: repository,
    cookies,
    productName: options.productName,
    siteParts: allParts,
  });
  await registerLinkRoutes(app, {
    accounts: repository,
    cookies,
    linkMails,
    links,
    productName: options.productName,
    wakeSender: wake,
  });

  app.housekeeping.add('expired tokens and sessions', () =>
    repository.deleteExpired(),
  );
  app.housekeeping.add('accounts unconfirmed after 7 days', () =>
    repository.deleteUnconfirmed(),
  );
  app.housekeeping.add('expired links', () => links.deleteExpired());
}

/**
 * Registers accounts on the service (see the module comment). Needs the
 * database, housekeeping, @fastify/cookie and the outbox.
 */
export const accountsPlugin = fastifyPlugin(accounts, {
  name: 'accounts',
  dependencies: ['database', 'housekeeping', '@fastify/cookie', 'outbox'],
});
