/**
 * The routes of confirmed addresses and sign-in by e-mail (docs/contract.md
 * "HTTP"; ADR-0096 to ADR-0099):
 *
 * - `GET /signin`, and `POST /signin`, which queues a sign-in link and
 *   answers the same page whatever the address;
 * - `GET`/`HEAD /link?token=…`, the continue page, which changes nothing,
 *   and `POST /link`, which confirms the address or signs in, once;
 * - `POST /resend-confirmation`, `/`'s "Send the link again".
 *
 * Mails are queued, never sent inline: the answer does not wait for SMTP,
 * and its timing says nothing about the address. Every POST here is a
 * plain HTML form, checked for its origin by server/http/crossOrigin.ts like
 * every other; errors answer as pages, not as the API's JSON.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isValidEmail } from '../../../common/emailAddress';
import { fitsFieldLimit } from '../../../common/fieldLimits';
import { messages } from '../../../common/validation';
import { RESEND_PATH, SIGN_IN_PATH } from '../accountPage';
import type { AccountsRepository } from '../accounts';
import { newSecret } from '../secrets';
import type { ServiceCookies } from '../sessionCookies';
import { errorAnswer, type RaisedError } from '../../http/errorAnswer';
import { acceptFormBodies } from '../../http/formBody';
import { sendLinkPage, sendPage } from '../../http/forms';
import type { LinksRepository } from './links';
import { LINK_PATH, watchedHost } from '../linkMails/linkMessages';
import {
  formErrorPage,
  linkContinuePage,
  linkRefusedPage,
  addressConfirmedPage,
  signInPage,
  signInSentPage,
} from './linkPages';
import type { LinkMailsRepository } from '../linkMails/linkMails';

/** The forms here hold one short field; anything near this is abuse. */
const FORM_LIMIT_BYTES = 1024;

export interface LinkRoutesOptions {
  accounts: AccountsRepository;
  /** The service's cookies (server/accounts/sessionCookies.ts). */
  cookies: ServiceCookies;
  /** Where the link mails are asked for (counted and queued). */
  linkMails: LinkMailsRepository;
  /** `PRODUCT_NAME`: the pages' name and the cookies' prefix. */
  productName: string;
  /** Tells the outbox a mail was queued (never waits). */
  wakeSender: () => void;
  /** Where magic links are read and spent. */
  links: LinksRepository;
}

/** A form field sent once, as a string; undefined otherwise. */
function field(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Registers the routes on `app`, in a context of their own that reads form
 * bodies. Needs @fastify/cookie registered on `app`.
 */
export async function registerLinkRoutes(
  app: FastifyInstance,
  options: LinkRoutesOptions,
): Promise<void> {
  const { accounts, cookies, linkMails, links, productName, wakeSender } =
    options;
  const sessionOf = (request: FastifyRequest) =>
    request.cookies[cookies.session];

  await app.register(async (pages) => {
    await acceptFormBodies(pages, FORM_LIMIT_BYTES);

    // A form's error is a page, not the API's JSON: a cross-site post, a
    // body that is not a form, a database that cannot answer.
    pages.setErrorHandler((error: RaisedError, request, reply) => {
      // The status the API would answer (server/http/errorAnswer.ts), as a page.
      const { status } = errorAnswer(error);
      if (status >= 500) request.log.error(error);
      const answer = request.url.startsWith(LINK_PATH)
        ? sendLinkPage
        : sendPage;
      return answer(reply, status, formErrorPage(productName, status));
    });

    pages.get(SIGN_IN_PATH, (_request, reply) =>
      sendPage(reply, 200, signInPage(productName)),
    );

    pages.post(SIGN_IN_PATH, async (request, reply) => {
      const email = field(request.body, 'email') ?? '';
      const trimmed = email.trim();
      const problem =
        trimmed === ''
          ? messages.emailRequired
          : !fitsFieldLimit('email', trimmed)
            ? messages.emailTooLong
            : !isValidEmail(trimmed)
              ? messages.emailInvalid
              : undefined;
      // What the address looks like says nothing about accounts.
      if (problem) {
        return sendPage(
          reply,
          400,
          signInPage(productName, { message: problem, email }),
        );
      }
      const queued = await linkMails.requestMail({
        kind: 'signin',
        email: trimmed,
        clientAddress: request.ip,
      });
      if (queued) wakeSender();
      // The same page for a known address, an unknown one, and one over
      // its limit (ADR-0097).
      return sendPage(reply, 200, signInSentPage(productName));
    });

    pages.get(LINK_PATH, async (request, reply) => {
      const token = field(request.query, 'token');
      const link = token === undefined ? undefined : await links.linkOf(token);
      return link && token
        ? sendLinkPage(
            reply,
            200,
            linkContinuePage(
              productName,
              link.purpose,
              token,
              link.email,
              watchedHost(link.siteUrl),
            ),
          )
        : sendLinkPage(reply, 410, linkRefusedPage(productName));
    });

    pages.post(LINK_PATH, async (request, reply) => {
      const token = field(request.body, 'token');
      const purpose =
        token === undefined ? undefined : (await links.linkOf(token))?.purpose;
      if (token !== undefined && purpose === 'confirm') {
        const confirmed = await links.confirm(token, sessionOf(request));
        if (confirmed?.signedInHere) {
          return sendLinkPage(reply.header('location', '/'), 303, '');
        }
        if (confirmed) {
          return sendLinkPage(reply, 200, addressConfirmedPage(productName));
        }
      }
      if (token !== undefined && purpose === 'signin') {
        const session = newSecret();
        const account = await links.signIn(token, session);
        if (account) {
          cookies.setSession(reply, session);
          return sendLinkPage(reply.header('location', '/'), 303, '');
        }
      }
      return sendLinkPage(reply, 410, linkRefusedPage(productName));
    });

    pages.post(RESEND_PATH, async (request, reply) => {
      const session = sessionOf(request);
      const account = session ? await accounts.findBySession(session) : null;
      if (!account || account.confirmed) {
        return reply.code(303).header('location', '/').send();
      }
      const queued = await linkMails.requestMail({
        kind: 'confirm',
        email: account.email,
        clientAddress: request.ip,
      });
      if (queued) wakeSender();
      return reply
        .code(303)
        .header('location', `/?resent=${queued ? 'sent' : 'limited'}`)
        .send();
    });
  });
}
