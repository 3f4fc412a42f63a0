/**
 * The monitoring the welcome page promises (issue 45; ADR-0103 to ADR-0108):
 * every site checked every interval, safely (SSRF:
 * ./check/addressRule.ts, ./check/siteCheck.ts), its up/down machine moved by each
 * check (machines/monitorMachine.ts), and an alert mailed through the
 * outbox when it goes down and when it is back.
 *
 * A Fastify plugin of its own, started and closed like the outbox's worker: it
 * decorates the service with `monitor` (its repository, its scheduler on
 * an instance that checks), lists the account's sites on `/` (through
 * accounts), registers the sites' pages and forms (./siteRoutes.ts, ADR-0127)
 * and the alert mail's stop link, gives housekeeping its deletes, and
 * stops its checks when the service closes. The rest of the service
 * reaches it through this file only.
 */
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { sendLinkPage } from '../http/forms';
import { addressRule, parseDeniedNetworks } from './check/addressRule';
import {
  alertsStoppedPage,
  ALERTS_STOP_PATH,
  firstCheckStep,
  stopAlertsPage,
} from './page';
import { registerSiteRoutes } from './siteRoutes';
import { judgeSiteAddress } from './siteForm';
import { sitesSection, type SitesNote } from './sitePages';
import { sitesRepository } from './sites';
import { monitorRepository, type MonitorRepository } from './repository';
import { monitorScheduler, type MonitorScheduler } from './scheduler';
import {
  DEFAULT_LEASE_MS,
  pinnedResolver,
  type MonitorOptions,
  type SitesOptions,
} from './settings';
import { hostResolver } from './check/hostResolver';
import { resumeWatch, watchTheSite } from './watch';
import { checkSite } from './check/siteCheck';
import { postConnections, postSafely } from './check/safePost';
import { monitorUserAgent } from './words';
import { alertRenderer, SITE_EVENT_KINDS } from './alertNotices';
import type { SiteEventsWrite } from './repository';

export { checkNowPath, sitePath } from './page';
export type { CheckNowNote } from './page';
export { NEW_SITE_PATH } from './sitePages';
export {
  DEFAULT_SITES_PER_ACCOUNT,
  monitorNotice,
  monitorOptionsFrom,
  monitorWarnings,
  sitesOptionsFrom,
  type MonitorOptions,
  type SitesOptions,
} from './settings';
export type { CheckObservation } from './scheduler';
export type { SiteEventsWrite } from './repository';
export { isSiteId } from './sites';
export { MONITOR_MIGRATIONS } from './migrations/index';
export type { MonitorTables } from './tables';

/** The monitor's own health (ADR-0122): 503 while most canaries fail. */
export const MONITOR_HEALTH_PATH = '/healthz/monitor';

/** "Check now": at most one per account in this long (ADR-0106). */
export const CHECK_NOW_LIMIT_MS = 60_000;

/** What the plugin needs of the service. */
export interface MonitorPluginOptions {
  /** How this instance checks; undefined: it checks nothing (`MONITOR=off`). */
  monitor: MonitorOptions | undefined;
  /** An account's sites: how many, and their intervals' base. */
  sites: SitesOptions;
  /** `PRODUCT_NAME` and `PUBLIC_URL`: the checks' User-Agent. */
  productName: string;
  publicUrl: string;
}

/** What `/` shows of an account's sites. */
export interface MonitorPageParts {
  /** The section: the sites, each with its state, and "Add a site". */
  section: string;
  /** The first item of "What happens next". */
  firstStep: string;
}

/** The monitor as the rest of the service sees it (`app.monitor`). */
export interface MonitorFeature {
  repository: MonitorRepository;
  /** This instance's scheduler; undefined with `MONITOR=off`. */
  scheduler: MonitorScheduler | undefined;
  /** The checks' User-Agent (ADR-0103). */
  userAgent: string;
  /**
   * What `/` shows of an account's sites.
   *
   * @param note what `/?removed=` says, if anything
   */
  pageParts(
    accountId: string,
    note: SitesNote | undefined,
  ): Promise<MonitorPageParts>;
  /** Looks for due checks now (after a sign-up committed). */
  wake(): void;
  /**
   * Sets the write that fans a site's events out to its channels, in the
   * statement that records the checks (the alerts', ADR-0129).
   */
  onSiteEvents(write: SiteEventsWrite): void;
  /**
   * An account's sites, by id: their names (or hosts) and URLs, for
   * another feature's forms (a channel narrowed to some sites).
   */
  sitesOf(
    accountId: string,
  ): Promise<{ id: string; name: string; url: string }[]>;
  /**
   * The monitor's address rule applied to a URL about to be saved (an alert
   * channel's): its host resolved as a check resolves it.
   *
   * @returns the refusal in plain words, or undefined when it may be saved
   */
  judgeUrl(url: string): Promise<string | undefined>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The site monitor (server/monitor/). */
    monitor: MonitorFeature;
  }
}

export { monitorUserAgent };

async function monitor(
  app: FastifyInstance,
  options: MonitorPluginOptions,
): Promise<void> {
  const repository = monitorRepository(app.database.db);
  const sites = sitesRepository(app.database.db);
  const userAgent = monitorUserAgent(options.productName, options.publicUrl);
  const settings = options.monitor;
  const clock = settings?.clock ?? (() => new Date());
  const isAllowed = addressRule(
    settings?.allowedNetworks ?? [],
    settings?.deniedNetworks ?? parseDeniedNetworks(undefined),
  );
  // The hosts file, then DNS on the event loop (c-ares), never the thread
  // pool's getaddrinfo: a name that hangs holds nothing another check needs.
  const hostLookup = hostResolver(
    settings?.dnsServers ? { servers: settings.dnsServers } : {},
  );
  const resolve =
    settings?.resolve ??
    (settings?.pins ? pinnedResolver(settings.pins) : hostLookup);

  const scheduler = settings
    ? monitorScheduler(repository, {
        intervalMs: settings.intervalMs,
        concurrency: settings.concurrency,
        ...(settings.slotHoldMs !== undefined && {
          slotHoldMs: settings.slotHoldMs,
        }),
        leaseMs: settings.leaseMs ?? DEFAULT_LEASE_MS,
        pollMs: settings.pollMs ?? 1_000,
        checkNowLimitMs: CHECK_NOW_LIMIT_MS,
        clock,
        check: (url, signal) =>
          checkSite(url, {
            userAgent,
            resolve,
            isAllowed,
            signal,
            now: clock,
            ...(settings.beforeConnect && {
              beforeConnect: settings.beforeConnect,
            }),
            ...(settings.ca && { ca: settings.ca }),
            ...(settings.timeouts && { timeouts: settings.timeouts }),
          }),
        // Alerts are queued in the outbox; its worker is told.
        wakeSender: () => app.outbox.wake(),
        embedded: app.database.engine === 'pglite',
        log: app.log,
        ...(settings.observe && { observe: settings.observe }),
        ...(settings.canaryUrls && { canaryUrls: settings.canaryUrls }),
      })
    : undefined;

  const feature: MonitorFeature = {
    repository,
    scheduler,
    userAgent,
    async pageParts(accountId, note) {
      const now = clock();
      const [list, first] = await Promise.all([
        sites.list(accountId, now),
        repository.view(accountId, undefined, now),
      ]);
      return {
        section: sitesSection(list, {
          now,
          baseIntervalMs: options.sites.intervalMs,
          limit: options.sites.perAccount,
          note,
        }),
        firstStep: firstCheckStep(first, userAgent),
      };
    },
    wake() {
      scheduler?.wake();
    },
    onSiteEvents(write) {
      repository.onSiteEvents(write);
    },
    judgeUrl: (url) => judgeSiteAddress(url, resolve, isAllowed),
    async sitesOf(accountId) {
      const list = await sites.list(accountId, clock());
      return list.map((site) => ({
        id: site.id,
        name: site.name ?? URL.parse(site.siteUrl)?.host ?? site.siteUrl,
        url: site.siteUrl,
      }));
    },
  };
  app.decorate('monitor', feature);
  // A site's events are worded here, on every channel (ADR-0129).
  const render = alertRenderer(
    { productName: options.productName, publicUrl: options.publicUrl },
    (accountIds) => app.accounts.repository.provenNames(accountIds),
  );
  for (const kind of Object.values(SITE_EVENT_KINDS)) {
    app.outbox.renderer(kind, render);
  }
  // The channels' POSTs go under the monitor's rules (issue 60), over
  // connections kept alive between them (ADR-0132).
  const kept = postConnections();
  app.outbox.usePoster((url, request, signal) =>
    postSafely(url, request, {
      connections: kept,
      userAgent,
      resolve,
      isAllowed,
      ...(signal && { signal }),
      ...(settings?.beforeConnect && { beforeConnect: settings.beforeConnect }),
      ...(settings?.ca && { ca: settings.ca }),
      ...(settings?.postTimeouts && { timeouts: settings.postTimeouts }),
    }),
  );
  // A confirmed address's site is due at once (ADR-0120), in the statement
  // that confirms it.
  app.accounts.whenConfirmed(resumeWatch);
  // The sign-up's site is the account's first, due at once (ADR-0103), in the
  // statement that makes the account.
  app.accounts.onSignUp(watchTheSite);
  // `/` lists the sites, and says when one was removed (`?removed=`).
  app.accounts.showOnAccountPage((accountId, query) =>
    feature.pageParts(
      accountId,
      (query as { removed?: unknown } | undefined)?.removed === undefined
        ? undefined
        : 'removed',
    ),
  );
  app.housekeeping.add('raw checks past their hour (rolled up)', () =>
    repository.rollUp(clock()),
  );
  app.housekeeping.add('hours and incidents past their retention', () =>
    repository.deleteOld(clock()),
  );

  await registerSiteRoutes(app, {
    productName: options.productName,
    repository,
    sites,
    scheduler,
    userAgent,
    baseIntervalMs: options.sites.intervalMs,
    limit: options.sites.perAccount,
    checkNowLimitMs: CHECK_NOW_LIMIT_MS,
    resolve,
    isAllowed,
    clock,
  });

  // The alert mail's stop link (ADR-0124): a form with no body; its origin is
  // checked by the service's cross-origin hook like every POST (a mail
  // provider's one-click POST sends no Origin, which passes).
  await app.register(async (forms) => {
    forms.removeAllContentTypeParsers();
    forms.addContentTypeParser('*', (_request, _payload, done) =>
      done(null, undefined),
    );

    // The off switch on alert mail (ADR-0124). A stop link's GET changes
    // nothing (mail scanners open every link); its POST, from the page's
    // form or a mail provider's one-click (RFC 8058: no cookie, no
    // Origin), stops the site's alerts: the token is the proof.
    const stopLinkOf = (query: unknown) => {
      const { m, t } = (query ?? {}) as { m?: unknown; t?: unknown };
      return typeof m === 'string' && typeof t === 'string'
        ? { monitorId: m, token: t }
        : undefined;
    };
    forms.get(ALERTS_STOP_PATH, async (request, reply) => {
      const link = stopLinkOf(request.query);
      const site = link
        ? await repository.stopLinkSite(link.monitorId, link.token)
        : undefined;
      if (!link || !site) {
        return sendLinkPage(
          reply,
          404,
          alertsStoppedPage(options.productName, undefined),
        );
      }
      return sendLinkPage(
        reply,
        200,
        stopAlertsPage(
          options.productName,
          site.siteUrl,
          `${ALERTS_STOP_PATH}?${new URLSearchParams({ m: link.monitorId, t: link.token }).toString()}`,
          site.stopped,
        ),
      );
    });
    forms.post(ALERTS_STOP_PATH, async (request, reply) => {
      const link = stopLinkOf(request.query);
      const siteUrl = link
        ? await repository.stopAlerts(link.monitorId, link.token)
        : undefined;
      return sendLinkPage(
        reply,
        siteUrl ? 200 : 404,
        alertsStoppedPage(options.productName, siteUrl),
      );
    });
  });

  // Whether this instance's verdicts count (ADR-0122), for an operator's probe;
  // `/healthz`, which a load balancer reads for the pages, is not moved by
  // it. An instance that checks nothing has no verdicts to doubt.
  app.get(MONITOR_HEALTH_PATH, async (_request, reply) => {
    const health = scheduler?.health() ?? { status: 'ok', canaries: 0 };
    reply.header('cache-control', 'no-store');
    if (health.status === 'ok') {
      return reply.code(200).send({
        status: 'ok',
        checking: scheduler !== undefined,
        canaries: health.canaries,
      });
    }
    return reply.code(503).send({
      status: 'inconclusive',
      reason: `${health.failed} of ${health.canaries} canaries fail since ${health.since.toISOString()}: this instance may be cut off, so no site is called down`,
    });
  });

  // After the requests in flight (Fastify runs onClose hooks once the
  // server has stopped accepting and finished them).
  app.addHook('onClose', async () => {
    await scheduler?.stop();
    hostLookup.cancel();
    // The posts in flight end first; any later one opens its own connection.
    await kept.close();
  });
  if (scheduler && settings?.autoStart !== false) await scheduler.start();
}

/**
 * Registers the monitor on the service (see the module comment). Its
 * decoration, `app.monitor`, is the service's own, not a child context's.
 * Needs the database, housekeeping, accounts and the outbox.
 */
export const monitorPlugin = fastifyPlugin(monitor, {
  name: 'monitor',
  dependencies: ['database', 'housekeeping', 'accounts', 'outbox'],
});
