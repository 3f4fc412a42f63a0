/**
 * The alert channels' pages and forms (issue 60), in the sites' manner
 * (server/monitor/siteRoutes.ts, ADR-0127): add a channel, its page, the
 * sites it alerts for changed, "Send a test alert" and "Remove"; an added
 * address's confirmation link, and "Send the link again"; an alert mail's one-click unsubscribe link
 * (RFC 8058).
 *
 * - Every channel page needs a session (without one: 303 to `/`, which
 *   signs in), and every page and action on a channel the session's
 *   account does not have answers 404 and changes nothing.
 * - Every POST is origin-checked by the service's cross-origin hook
 *   (server/http/crossOrigin.ts); the one-click unsubscribe needs no
 *   exception: a mail provider's POST sends no Origin, which passes, as
 *   the alerts' stop link's does (server/monitor/index.ts).
 * - The confirmation and unsubscribe links' GETs change nothing (mail
 *   scanners open every link); their POSTs, with no session, act: the
 *   token is the proof.
 * - A successful POST answers 303 (post/redirect/get); a refused form 422
 *   with the form again (the sites' form: the channel's page, with its
 *   secret never spent by it).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptFormBodies } from '../http/formBody';
import {
  seeOther,
  sendLinkPage,
  sendPage,
  signedInOrHome,
} from '../http/forms';
import {
  readChannelForm,
  readSitesChoice,
  channelFormValues,
  type ChannelFormBody,
  type ChannelFormError,
  type ChannelFormValues,
} from './channelForm';
import { testNotice } from './channelNotices';
import {
  channelConfirmedPage,
  channelFormPage,
  channelNotFoundPage,
  channelPage,
  confirmChannelPage,
  maskedAddress,
  ownerUnconfirmedPage,
  unsubscribedPage,
  unsubscribePage,
  type ChannelNote,
  type ChannelSite,
  type ResendNote,
  type TestNote,
} from './channelPages';
import {
  CHANNELS_PATH,
  CONFIRM_CHANNEL_PATH,
  NEW_CHANNEL_PATH,
  channelPath,
  channelSitesPath,
  removeChannelPath,
  resendChannelPath,
  testChannelPath,
} from './channelPaths';
import {
  CHANNELS_PER_ACCOUNT,
  CONFIRM_MAILS_PER_DAY,
  EMAIL_CHANNELS_PER_ACCOUNT,
  type AddRefusal,
  type ChannelsRepository,
} from './channels';
import { UNSUBSCRIBE_PATH } from './fanOut';

/** What the routes need of the feature. */
export interface ChannelRoutesOptions {
  productName: string;
  /** `PUBLIC_URL`: the test alert's links. */
  publicUrl: string;
  channels: ChannelsRepository;
}

/**
 * A route's pattern from the path a page links to, so that the two never
 * part: `channelPath(ID)` is `/channels/:id`.
 */
const ID = ':id';

/** The largest channel form read, in bytes: a URL of 2,048 characters and ticked sites. */
const FORM_BODY_LIMIT = 32 * 1024;

/** What the form's refusal by the repository says, on which field. */
const REFUSALS: Readonly<Record<AddRefusal, ChannelFormError>> = {
  limit: {
    field: 'kind',
    message: `Remove a channel before you add another: an account can have ${CHANNELS_PER_ACCOUNT}`,
  },
  emailLimit: {
    field: 'target',
    message: `Remove an email address before you add another: an account can have ${EMAIL_CHANNELS_PER_ACCOUNT} besides its own`,
  },
  duplicate: {
    field: 'target',
    message: 'Enter another address or URL: this channel is added already',
  },
  sites: {
    field: 'sites',
    message: 'Choose the sites again: one of them was removed meanwhile',
  },
  mailLimit: {
    field: 'target',
    message: `Add this address later: your account has sent ${CONFIRM_MAILS_PER_DAY} confirmation links in the last 24 hours, the most it can`,
  },
};

/** A channel page's `?test=`, when it is one the page knows. */
function testNoteOf(value: unknown): TestNote | undefined {
  return value === 'unconfirmed' || value === 'limited' ? value : undefined;
}

/** A channel page's `?resend=`, when it is one the page knows. */
function resendNoteOf(value: unknown): ResendNote | undefined {
  return value === 'cooldown' || value === 'limited' ? value : undefined;
}

/** A channel page's `?done=`, when it is one the page knows. */
function channelNoteOf(value: unknown): ChannelNote | undefined {
  return value === 'saved' || value === 'resent' ? value : undefined;
}

/** The words of a test alert's outcome, as its page shows them. */
function outcomeWords(
  outcome:
    { ok: true; status?: number | undefined } | { ok: false; error: string },
): string {
  if (!outcome.ok) return `Not delivered: ${outcome.error}.`;
  return outcome.status === undefined
    ? 'Delivered: the mail server accepted it.'
    : `Delivered: HTTP ${outcome.status}.`;
}

const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

/** A query's text field, or undefined. */
function queryText(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** An unsubscribe link's channel and token, from its query. */
function unsubscribeLinkOf(
  request: FastifyRequest,
): { channelId: string; token: string } | undefined {
  const channelId = queryText(request, 'c');
  const token = queryText(request, 't');
  return channelId !== undefined && token !== undefined
    ? { channelId, token }
    : undefined;
}

/**
 * Registers the routes (see the module comment) on the feature's
 * context.
 */
export async function registerChannelRoutes(
  app: FastifyInstance,
  options: ChannelRoutesOptions,
): Promise<void> {
  const { productName, publicUrl, channels } = options;

  const notFound = (reply: FastifyReply) =>
    sendPage(reply, 404, channelNotFoundPage(productName));
  /** The signed-in account, or a redirect to `/` (which signs in). */
  const accountOf = signedInOrHome((request) =>
    app.accounts.signedInAccount(request),
  );

  /** The account's sites, as the channel pages name them. */
  const sitesOf = (accountId: string): Promise<ChannelSite[]> =>
    app.monitor.sitesOf(accountId);

  /** The form again, refused (422), with what was typed. */
  const refused = (
    reply: FastifyReply,
    values: ChannelFormValues,
    sites: readonly ChannelSite[],
    errors: readonly ChannelFormError[],
  ) =>
    sendPage(
      reply,
      422,
      channelFormPage(productName, { values, errors, sites }),
    );

  app.get(NEW_CHANNEL_PATH, async (request, reply) => {
    const account = await accountOf(request, reply);
    if (!account) return reply;
    if (!account.confirmed) {
      return sendPage(reply, 200, ownerUnconfirmedPage(productName));
    }
    const [sites, list] = await Promise.all([
      sitesOf(account.id),
      channels.list(account.id),
    ]);
    return sendPage(
      reply,
      200,
      channelFormPage(productName, {
        values: { kind: '', target: '', sites: 'all', site: [] },
        errors:
          list.channels.length >= CHANNELS_PER_ACCOUNT ? [REFUSALS.limit] : [],
        sites,
      }),
    );
  });

  app.get(CONFIRM_CHANNEL_PATH, async (request, reply) => {
    const token = queryText(request, 'token');
    const address =
      token === undefined ? undefined : await channels.confirmable(token);
    return token === undefined || address === undefined
      ? sendLinkPage(reply, 410, channelConfirmedPage(productName, undefined))
      : sendLinkPage(
          reply,
          200,
          confirmChannelPage(productName, token, address),
        );
  });

  app.get(UNSUBSCRIBE_PATH, async (request, reply) => {
    const link = unsubscribeLinkOf(request);
    const channel = link
      ? await channels.unsubscribable(link.channelId, link.token)
      : undefined;
    if (!link || !channel) {
      return sendLinkPage(reply, 404, unsubscribedPage(productName, undefined));
    }
    const action = `${UNSUBSCRIBE_PATH}?${new URLSearchParams({ c: link.channelId, t: link.token }).toString()}`;
    return sendLinkPage(
      reply,
      200,
      unsubscribePage(productName, channel.target, action, channel.disabled),
    );
  });

  // No HEAD: a HEAD would spend a webhook's one showing of its secret.
  app.get(
    channelPath(ID),
    { exposeHeadRoute: false },
    async (request, reply) => {
      const account = await accountOf(request, reply);
      if (!account) return reply;
      const view = await channels.view(account.id, idOf(request));
      if (!view) return notFound(reply);
      return sendPage(
        reply,
        200,
        channelPage(productName, view, {
          sites: await sitesOf(account.id),
          testNote: testNoteOf(queryText(request, 'test')),
          resendNote: resendNoteOf(queryText(request, 'resend')),
          note: channelNoteOf(queryText(request, 'done')),
        }),
      );
    },
  );

  // The forms with fields: form-encoded UTF-8 only (server/http/formBody.ts).
  await app.register(async (forms) => {
    await acceptFormBodies(forms, FORM_BODY_LIMIT);

    forms.post(CHANNELS_PATH, async (request, reply) => {
      const account = await accountOf(request, reply);
      if (!account) return reply;
      if (!account.confirmed) {
        return sendPage(reply, 403, ownerUnconfirmedPage(productName));
      }
      const values = channelFormValues(
        request.body as ChannelFormBody | undefined,
      );
      const sites = await sitesOf(account.id);
      const read = await readChannelForm(values, {
        ownerEmail: account.email,
        siteIds: sites.map((site) => site.id),
        judgeUrl: (url) => app.monitor.judgeUrl(url),
      });
      if (!read.ok) return refused(reply, values, sites, read.errors);
      const added = await channels.add(
        account.id,
        read.channel,
        maskedAddress(account.email),
      );
      if (typeof added === 'string') {
        return refused(reply, values, sites, [REFUSALS[added]]);
      }
      // An address's confirmation mail was queued with it.
      if (read.channel.kind === 'email') app.outbox.wake('email');
      return seeOther(reply, channelPath(added.id));
    });

    forms.post(channelSitesPath(ID), async (request, reply) => {
      const account = await accountOf(request, reply);
      if (!account) return reply;
      const id = idOf(request);
      const values = channelFormValues(
        request.body as ChannelFormBody | undefined,
      );
      const sites = await sitesOf(account.id);
      /** The channel's page again, refused (422), with what was chosen. */
      const refusedSites = async (errors: readonly ChannelFormError[]) => {
        // Its secret is shown on a view of its own, never on a refusal.
        const view = await channels.view(account.id, id, false);
        if (!view) return notFound(reply);
        return sendPage(
          reply,
          422,
          channelPage(productName, view, {
            sites,
            refused: { values, errors },
          }),
        );
      };
      const read = readSitesChoice(
        values,
        sites.map((site) => site.id),
      );
      if (!read.ok) return refusedSites([read.error]);
      const saved = await channels.editSites(account.id, id, read.choice);
      if (saved === 'sites') return refusedSites([REFUSALS.sites]);
      if (!saved) return notFound(reply);
      return seeOther(reply, `${channelPath(id)}?done=saved`);
    });

    forms.post(CONFIRM_CHANNEL_PATH, async (request, reply) => {
      const { token } = (request.body ?? {}) as { token?: unknown };
      const address =
        typeof token === 'string' ? await channels.confirm(token) : undefined;
      return sendLinkPage(
        reply,
        address === undefined ? 410 : 200,
        channelConfirmedPage(productName, address),
      );
    });
  });

  // The forms with no field, and the one-click POST (any body, e.g.
  // `List-Unsubscribe=One-Click`): their bodies are not read.
  await app.register(async (forms) => {
    forms.removeAllContentTypeParsers();
    forms.addContentTypeParser('*', (_request, _payload, done) =>
      done(null, undefined),
    );

    forms.post(testChannelPath(ID), async (request, reply) => {
      const account = await accountOf(request, reply);
      if (!account) return reply;
      const id = idOf(request);
      const claim = await channels.claimTest(account.id, id);
      if (!claim) return notFound(reply);
      if (claim.state !== 'claimed') {
        return seeOther(reply, `${channelPath(id)}?test=${claim.state}`);
      }
      const [first] = await sitesOf(account.id);
      const notice = testNotice({
        productName,
        publicUrl,
        channelId: id,
        kind: claim.kind,
        site: first,
        at: new Date(),
        unsubscribeUrl:
          claim.kind === 'email'
            ? `${publicUrl}${UNSUBSCRIBE_PATH}?c=${id}&t=${claim.unsubscribeToken}`
            : undefined,
      });
      const outcome = await app.outbox
        .sendNow({
          channel: claim.kind,
          target: claim.target,
          secret: claim.secret,
          notice,
          id: `test-${id}-${Date.now()}`,
        })
        .catch((error: unknown) => {
          request.log.error(
            { err: error, channel: { id, kind: claim.kind } },
            'a test alert failed to run',
          );
          return { ok: false as const, error: 'it could not be sent' };
        });
      await channels.recordTest(account.id, id, outcomeWords(outcome));
      return seeOther(reply, channelPath(id));
    });

    forms.post(resendChannelPath(ID), async (request, reply) => {
      const account = await accountOf(request, reply);
      if (!account) return reply;
      if (!account.confirmed) {
        return sendPage(reply, 403, ownerUnconfirmedPage(productName));
      }
      const id = idOf(request);
      const outcome = await channels.resendConfirmation(
        account.id,
        id,
        maskedAddress(account.email),
      );
      if (outcome === undefined) return notFound(reply);
      if (outcome === 'notWaiting') return seeOther(reply, channelPath(id));
      if (outcome !== 'sent') {
        return seeOther(reply, `${channelPath(id)}?resend=${outcome}`);
      }
      app.outbox.wake('email');
      return seeOther(reply, `${channelPath(id)}?done=resent`);
    });

    forms.post(removeChannelPath(ID), async (request, reply) => {
      const account = await accountOf(request, reply);
      if (!account) return reply;
      if (!(await channels.remove(account.id, idOf(request)))) {
        return notFound(reply);
      }
      return seeOther(reply, '/');
    });

    // RFC 8058: a mail provider's POST carries no cookie and no Origin.
    forms.post(UNSUBSCRIBE_PATH, async (request, reply) => {
      const link = unsubscribeLinkOf(request);
      const address = link
        ? await channels.unsubscribe(link.channelId, link.token)
        : undefined;
      return sendLinkPage(
        reply,
        address === undefined ? 404 : 200,
        unsubscribedPage(productName, address),
      );
    });
  });
}
