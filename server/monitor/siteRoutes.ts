/**
 * The sites' pages and forms (issue 59; ADR-0127): add, edit, pause, resume
 * and remove a site, its page, and its "Check now" and "Send alerts
 * again". Every page needs a session (without one: 303 to `/`, which
 * signs in), every POST is origin-checked by the service's cross-origin
 * hook, and every page and action on a site the session's account does
 * not have answers 404 and changes nothing. A successful POST answers
 * 303 (post/redirect/get); a refused form 422 with the form again.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptFormBodies } from '../http/formBody';
import { seeOther, sendPage, signedInOrHome } from '../http/forms';
import type { AddressRule } from './check/addressRule';
import type { Resolver } from './check/siteCheck';
import type { MonitorRepository } from './repository';
import type { MonitorScheduler } from './scheduler';
import {
  checkNowPath,
  resumeAlertsPath,
  sitePath,
  type CheckNowNote,
} from './page';
import {
  judgeSiteAddress,
  readSiteForm,
  siteFormValues,
  type SiteFormBody,
  type SiteFormError,
  type SiteFormValues,
} from './siteForm';
import {
  confirmFirstPage,
  confirmRemovePage,
  editSitePath,
  NEW_SITE_PATH,
  pauseSitePath,
  removeSitePath,
  resumeSitePath,
  shownName,
  siteFormPage,
  siteFormValuesOf,
  siteNotFoundPage,
  sitePage,
  SITES_PATH,
  type SiteNote,
} from './sitePages';
import type { SitesRepository } from './sites';

/** What the routes need of the monitor. */
export interface SiteRoutesOptions {
  productName: string;
  repository: MonitorRepository;
  sites: SitesRepository;
  scheduler: MonitorScheduler | undefined;
  userAgent: string;
  /** `MONITOR_INTERVAL_SECONDS`, in ms. */
  baseIntervalMs: number;
  /** `SITES_PER_ACCOUNT`. */
  limit: number;
  /** "Check now": one per site in this long, ms (ADR-0106). */
  checkNowLimitMs: number;
  /** The monitor's resolver and address rule, which judge a saved URL. */
  resolve: Resolver;
  isAllowed: AddressRule;
  clock: () => Date;
}

/**
 * A route's pattern from the path a page links to, so that the two never
 * part: `sitePath(ID)` is `/sites/:id`.
 */
const ID = ':id';

/** The largest site form read, in bytes: three short fields. */
const FORM_BODY_LIMIT = 16 * 1024;

/** A site page's `?check=`, when it is one the page knows. */
function checkNoteOf(value: unknown): CheckNowNote | undefined {
  return value === 'checked' ||
    value === 'limited' ||
    value === 'running' ||
    value === 'queued' ||
    value === 'unconfirmed' ||
    value === 'paused'
    ? value
    : undefined;
}

/** A site page's `?done=`, when it is one the page knows. */
function siteNoteOf(value: unknown): SiteNote | undefined {
  return value === 'added' ||
    value === 'saved' ||
    value === 'paused' ||
    value === 'resumed'
    ? value
    : undefined;
}

/** A page number from `?page=`: 1 unless it is a whole number from 1 to 10,000. */
function pageOf(value: unknown): number {
  const page = typeof value === 'string' ? Number(value) : 1;
  return Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1;
}

const query = (request: FastifyRequest) =>
  (request.query ?? {}) as Record<string, unknown>;
const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

/**
 * Registers the routes (see the module comment) on the monitor's
 * context.
 */
export async function registerSiteRoutes(
  app: FastifyInstance,
  options: SiteRoutesOptions,
): Promise<void> {
  const { productName, repository, sites, scheduler, clock } = options;

  const notFound = (reply: FastifyReply) =>
    sendPage(reply, 404, siteNotFoundPage(productName));
  /** The signed-in account, or a redirect to `/` (which signs in). */
  const accountOf = signedInOrHome((request) =>
    app.accounts.signedInAccount(request),
  );

  /**
   * The signed-in account and one of its sites, by the route's id; or,
   * having answered (303 to `/` without a session, 404 for a site the
   * account does not have), undefined.
   */
  const ownSite = async (request: FastifyRequest, reply: FastifyReply) => {
    const account = await accountOf(request, reply);
    if (!account) return undefined;
    const id = idOf(request);
    const site = await sites.exists(account.id, id);
    if (!site) {
      await notFound(reply);
      return undefined;
    }
    return { account, id, site };
  };

  /** The form again, refused (422), with what was typed. */
  const refused = (
    reply: FastifyReply,
    mode: Parameters<typeof siteFormPage>[1]['mode'],
    values: SiteFormValues,
    errors: readonly SiteFormError[],
  ) =>
    sendPage(
      reply,
      422,
      siteFormPage(productName, {
        mode,
        values,
        errors,
        baseIntervalMs: options.baseIntervalMs,
      }),
    );

  /** The form's site, judged by the sign-up's rule and the address rule. */
  const judged = async (values: SiteFormValues) => {
    const read = readSiteForm(values, options.baseIntervalMs / 1000);
    if (!read.ok) return read;
    const refusal = await judgeSiteAddress(
      read.site.siteUrl,
      options.resolve,
      options.isAllowed,
    );
    return refusal === undefined
      ? read
      : {
          ok: false as const,
          errors: [{ field: 'url' as const, message: refusal }],
        };
  };

  app.get(NEW_SITE_PATH, async (request, reply) => {
    const account = await accountOf(request, reply);
    if (!account) return reply;
    if (!account.confirmed)
      return sendPage(reply, 200, confirmFirstPage(productName));
    const count = await sites.count(account.id);
    return sendPage(
      reply,
      200,
      siteFormPage(productName, {
        mode: { kind: 'add' },
        values: {
          url: '',
          name: '',
          interval: String(options.baseIntervalMs / 1000),
        },
        errors:
          count >= options.limit
            ? [{ field: 'url', message: limitMessage(options.limit) }]
            : [],
        baseIntervalMs: options.baseIntervalMs,
      }),
    );
  });

  app.get(sitePath(ID), async (request, reply) => {
    const account = await accountOf(request, reply);
    if (!account) return reply;
    const id = idOf(request);
    const now = clock();
    const view = await repository.view(account.id, id, now);
    if (!view) return notFound(reply);
    const current = pageOf(query(request).page);
    const [days, history] = await Promise.all([
      sites.days(view.id, now),
      sites.incidents(view.id, current),
    ]);
    const check = checkNoteOf(query(request).check);
    return sendPage(
      reply,
      200,
      sitePage(productName, view, {
        now,
        userAgent: options.userAgent,
        baseIntervalMs: options.baseIntervalMs,
        days,
        incidents: history.incidents,
        page: current,
        older: history.older,
        // A "confirm first" answer read after the address was confirmed
        // (a reload, a bookmark) would no longer be true.
        check: check === 'unconfirmed' && view.confirmed ? undefined : check,
        note: siteNoteOf(query(request).done),
      }),
    );
  });

  app.get(editSitePath(ID), async (request, reply) => {
    const own = await ownSite(request, reply);
    if (!own) return reply;
    const { id, site } = own;
    return sendPage(
      reply,
      200,
      siteFormPage(productName, {
        mode: { kind: 'edit', siteId: id, name: shownName(site) },
        values: siteFormValuesOf(site, options.baseIntervalMs),
        errors: [],
        baseIntervalMs: options.baseIntervalMs,
      }),
    );
  });

  app.get(removeSitePath(ID), async (request, reply) => {
    const own = await ownSite(request, reply);
    if (!own) return reply;
    const { id, site } = own;
    return sendPage(
      reply,
      200,
      confirmRemovePage(productName, { id, ...site }),
    );
  });

  // The forms with fields: form-encoded UTF-8 only (server/http/formBody.ts).
  await app.register(async (forms) => {
    await acceptFormBodies(forms, FORM_BODY_LIMIT);

    forms.post(SITES_PATH, async (request, reply) => {
      const account = await accountOf(request, reply);
      if (!account) return reply;
      if (!account.confirmed) {
        return sendPage(reply, 403, confirmFirstPage(productName));
      }
      const values = siteFormValues(request.body as SiteFormBody | undefined);
      const result = await judged(values);
      if (!result.ok)
        return refused(reply, { kind: 'add' }, values, result.errors);
      const added = await sites.add(
        account.id,
        result.site,
        options.limit,
        clock(),
      );
      if (added === 'limit') {
        return refused(reply, { kind: 'add' }, values, [
          { field: 'url', message: limitMessage(options.limit) },
        ]);
      }
      scheduler?.wake();
      return seeOther(reply, `${sitePath(added.id)}?done=added`);
    });

    forms.post(sitePath(ID), async (request, reply) => {
      const own = await ownSite(request, reply);
      if (!own) return reply;
      const { account, id, site } = own;
      const values = siteFormValues(request.body as SiteFormBody | undefined);
      const result = await judged(values);
      const mode = { kind: 'edit' as const, siteId: id, name: shownName(site) };
      if (!result.ok) return refused(reply, mode, values, result.errors);
      const edited = await sites.edit(
        account.id,
        id,
        result.site,
        options.baseIntervalMs,
        clock(),
      );
      if (!edited) return notFound(reply);
      scheduler?.wake();
      return seeOther(reply, `${sitePath(id)}?done=saved`);
    });
  });

  // The forms with no field: their bodies are not read.
  await app.register(async (forms) => {
    forms.removeAllContentTypeParsers();
    forms.addContentTypeParser('*', (_request, _payload, done) =>
      done(null, undefined),
    );

    forms.post(pauseSitePath(ID), async (request, reply) => {
      const account = await accountOf(request, reply);
      if (!account) return reply;
      const id = idOf(request);
      if (!(await sites.pause(account.id, id, clock()))) return notFound(reply);
      return seeOther(reply, `${sitePath(id)}?done=paused`);
    });

    forms.post(resumeSitePath(ID), async (request, reply) => {
      const account = await accountOf(request, reply);
      if (!account) return reply;
      const id = idOf(request);
      const resumed = await sites.resume(
        account.id,
        id,
        account.confirmed,
        clock(),
      );
      if (!resumed) return notFound(reply);
      scheduler?.wake();
      return seeOther(reply, `${sitePath(id)}?done=resumed`);
    });

    forms.post(removeSitePath(ID), async (request, reply) => {
      const account = await accountOf(request, reply);
      if (!account) return reply;
      const removed = await sites.remove(account.id, idOf(request));
      if (removed === undefined) return notFound(reply);
      return seeOther(reply, '/?removed=1');
    });

    forms.post(checkNowPath(ID), async (request, reply) => {
      const own = await ownSite(request, reply);
      if (!own) return reply;
      const { account, id } = own;
      let note: CheckNowNote | undefined;
      if (!account.confirmed) {
        // Nothing is checked for an unproven address but its first check
        // (ADR-0120): not on request either.
        note = 'unconfirmed';
      } else if (scheduler) {
        const outcome = await scheduler.checkNow(account.id, id);
        note = outcome === 'none' ? undefined : outcome;
      } else {
        const queued = await repository.dueNow(
          account.id,
          id,
          options.checkNowLimitMs,
          clock(),
        );
        note = queued ? 'queued' : 'limited';
      }
      return seeOther(
        reply,
        note ? `${sitePath(id)}?check=${note}` : sitePath(id),
      );
    });

    forms.post(resumeAlertsPath(ID), async (request, reply) => {
      const own = await ownSite(request, reply);
      if (!own) return reply;
      const { account, id } = own;
      await repository.resumeAlerts(account.id, id);
      return seeOther(reply, sitePath(id));
    });
  });
}

/** What the form says when the account has its most sites. */
function limitMessage(limit: number): string {
  return `Remove a site before you add another: an account can watch ${limit} sites`;
}
