/**
 * Alert channels (issue 60; D129): where an account's alerts go besides
 * its own address. A Fastify plugin: it fans each site event the monitor
 * queues out to the account's address and channels (in the monitor's
 * statement), marks a channel failing when its deliveries die and working
 * when they arrive, and words the mail that says a channel fails. The
 * rest of the service reaches alert channels through this file only.
 */
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { failingRenderer } from './channelNotices';
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
  app.monitor.onSiteEvents(siteEventsFanOut(options.publicUrl));
  app.outbox.onDead(channelsDied);
  app.outbox.onSent(channelsWork);
  app.outbox.renderer(CHANNEL_FAILING_KIND, failingRenderer(options));
}

/**
 * Registers alert channels on the service (see the module comment).
 * Needs accounts, the outbox and the monitor.
 */
export const alertsPlugin = fastifyPlugin(alerts, {
  name: 'alerts',
  dependencies: ['database', 'accounts', 'outbox', 'monitor'],
});
