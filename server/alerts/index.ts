/**
 * Alert channels (issue 60; ADR-0129): where an account's alerts go besides
 * its own address. A Fastify plugin: it fans each site event the monitor
 * queues out to the account's address and channels (in the monitor's
 * statement), marks a channel failing when its deliveries die and working
 * when they arrive, words its own mails (a channel fails; an added address
 * is asked to confirm), shows on `/` where the alerts go (after the
 * sites), and registers the channels' pages and forms (./channelRoutes.ts).
 * The rest of the service reaches alert channels through this file only.
 */
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { newSecret, secretHash } from '../accounts/index';
import {
  CHANNEL_CONFIRM_KIND,
  confirmRenderer,
  failingRenderer,
} from './channelNotices';
import { channelsSection } from './channelPages';
import { registerChannelRoutes } from './channelRoutes';
import { channelsRepository } from './channels';
import {
  channelsDied,
  channelsWork,
  CHANNEL_FAILING_KIND,
  siteEventsFanOut,
} from './fanOut';

export { ALERTS_MIGRATIONS } from './migrations/index';
export type { AlertsTables } from './tables';

/** What the plugin needs of the service. */
export interface AlertsPluginOptions {
  productName: string;
  /** `PUBLIC_URL`: the links in alerts. */
  publicUrl: string;
}

async function alerts(
  app: FastifyInstance,
  options: AlertsPluginOptions,
): Promise<void> {
  const channels = channelsRepository(app.database.db);
  app.monitor.onSiteEvents(siteEventsFanOut(options.publicUrl));
  app.outbox.onDead(channelsDied);
  app.outbox.onSent(channelsWork);
  app.outbox.renderer(CHANNEL_FAILING_KIND, failingRenderer(options));
  app.outbox.renderer(
    CHANNEL_CONFIRM_KIND,
    confirmRenderer(
      (tokens) => channels.mintConfirmations(tokens),
      () => {
        const token = newSecret();
        return { token, hash: secretHash(token) };
      },
      options,
    ),
  );
  // `/` says where the alerts go, after the sites (registered first).
  app.accounts.showOnAccountPage(async (accountId) => ({
    section: channelsSection(await channels.list(accountId)),
  }));
  await registerChannelRoutes(app, {
    productName: options.productName,
    publicUrl: options.publicUrl,
    channels,
  });
}

/**
 * Registers alert channels on the service (see the module comment).
 * Needs accounts, the outbox and the monitor.
 */
export const alertsPlugin = fastifyPlugin(alerts, {
  name: 'alerts',
  dependencies: ['database', 'accounts', 'outbox', 'monitor'],
});
