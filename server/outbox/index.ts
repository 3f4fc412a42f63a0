/**
 * The outbox of notifications (ADR-0129), a layer under the features: one
 * table of deliveries, one worker, and one adapter per channel (mail
 * through nodemailer; webhook, Slack, Discord and ntfy through the POST
 * the monitor gives it, under its SSRF rules). It imports no
 * feature: each feature queues its deliveries in its own statements
 * ({@link insertDeliveries}), words its own kinds (`app.outbox.renderer`),
 * and hears of its channels' deaths and recoveries (`onDead`, `onSent`).
 * How mail is sent is its settings' (./settings.ts: `MailOptions`, and the
 * directory mail is written to without `SMTP_URL`, which `npm run mail`,
 * ./mailCommand.ts, reads).
 *
 * A Fastify plugin: it decorates the service with `outbox`, gives
 * housekeeping its deletes, starts the worker when the service is ready
 * (every renderer registered by then) and stops it when the service
 * closes, after the requests in flight and before the database.
 */
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import {
  deliveriesRepository,
  DELIVERY_ROWS_KEPT_DAYS,
  laneOf,
  type DeadHandler,
  type SentHandler,
} from './deliveries';
import {
  deliverer,
  type Deliverer,
  type Renderer,
  type SendOutcome,
  type SendRequest,
} from './deliverer';
import type { HttpPoster } from './channels/http';
import type { ChannelKind } from './notice';
import {
  openMailTransport,
  type MailTransportSettings,
} from './channels/mailTransport';

export {
  deliveriesQueued,
  insertDeliveries,
  unsentDeliveries,
  type ClaimedDelivery,
  type DeadDelivery,
} from './deliveries';
export {
  DELIVERY_LEASE_MS,
  type Renderer,
  type SendOutcome,
  type SendRequest,
} from './deliverer';
export { CHANNEL_KINDS, type ChannelKind, type Notice } from './notice';
export type { HttpPoster, PostAnswer } from './channels/http';
export { newWebhookSecret } from './channels/httpFormats';
export {
  fromHeader,
  greeting,
  mailOf,
  type ComposedMail,
} from './channels/email';
export {
  deleteOldMailFiles,
  LONGEST_SEND_MS,
  openMailTransport,
  SMTP_TIMEOUTS,
  sendFailure,
  type DkimSettings,
  type MailTransport,
  type MailTransportSettings,
} from './channels/mailTransport';
export { MAIL_DIR, mailDirFrom, type MailOptions } from './settings';
export { OUTBOX_MIGRATIONS } from './migrations/index';
export type { OutboxTables } from './tables';

/** The outbox as the features see it (`app.outbox`). */
export interface OutboxFeature {
  /** Words a kind of delivery (`site.down`): its feature's renderer. Register before ready. */
  renderer(kind: string, render: Renderer): void;
  /** What a feature does about its channels' dead deliveries (see deliveries.ts). */
  onDead(handler: DeadHandler): void;
  /** What a feature does when its channels' deliveries arrive. */
  onSent(handler: SentHandler): void;
  /** The POST under the monitor's SSRF rules (the monitor gives it). */
  usePoster(post: HttpPoster): void;
  /**
   * Tells the worker a delivery was queued (never waits). `channel`: the
   * channel of everything queued, when there is one (a mail: only mails
   * are looked for); without it, every channel's deliveries are.
   */
  wake(channel?: ChannelKind): void;
  /**
   * Sends a notice at once, outside the queue ("Send a test alert").
   *
   * @returns `ok` with the status, or the error in our words
   */
  sendNow(request: SendRequest): Promise<SendOutcome>;
  /** The worker (tests drain it); undefined without mail settings. */
  deliverer: Deliverer | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The outbox of notifications (server/outbox/). */
    outbox: OutboxFeature;
  }
}

/** What the outbox needs of the service. */
export interface OutboxPluginOptions {
  productName: string;
  publicUrl: string;
  /**
   * How mail is sent, and how often the worker looks; undefined: nothing
   * is delivered (tests that are not about it), deliveries wait.
   */
  delivery?:
    | {
        from: string;
        transport: MailTransportSettings;
        pollIntervalMs?: number | undefined;
        /** Backoff of retries (ms); defaults 1 s, doubling to 5 min. */
        retry?:
          Partial<{ firstDelayMs: number; maxDelayMs: number }> | undefined;
        autoStart?: boolean | undefined;
      }
    | undefined;
}

async function outbox(
  app: FastifyInstance,
  options: OutboxPluginOptions,
): Promise<void> {
  const repository = deliveriesRepository(app.database.db);
  const renderers = new Map<string, Renderer>();
  let poster: HttpPoster | undefined;
  const post: () => HttpPoster = () => {
    if (!poster)
      throw new Error('the outbox has no poster: the monitor gives it');
    return poster;
  };
  const delivery = options.delivery;
  const mailTransport = delivery
    ? openMailTransport(delivery.transport)
    : undefined;
  const worker = delivery
    ? deliverer(repository, {
        productName: options.productName,
        publicUrl: options.publicUrl,
        mailFrom: delivery.from,
        mail: mailTransport,
        post,
        renderers,
        pollMs: delivery.pollIntervalMs ?? 5_000,
        retry: delivery.retry,
        embedded: app.database.engine === 'pglite',
        log: app.log,
      })
    : undefined;

  app.decorate('outbox', {
    renderer(kind, render) {
      renderers.set(kind, render);
    },
    onDead: (handler) => repository.onDead(handler),
    onSent: (handler) => repository.onSent(handler),
    usePoster(given) {
      poster = given;
    },
    wake: (channel) => worker?.wake(channel && laneOf(channel)),
    async sendNow(request) {
      if (!worker) {
        return { ok: false, error: 'nothing is sent here', gone: false };
      }
      return worker.sendNow(request);
    },
    deliverer: worker,
  } satisfies OutboxFeature);

  app.housekeeping.add('copies of deliveries past 7 days', () =>
    repository.dropOldCopies(),
  );
  app.housekeeping.add(
    `deliveries ended past ${DELIVERY_ROWS_KEPT_DAYS} days`,
    () => repository.deleteOld(),
  );
  // Without SMTP_URL, the mail files under DATA_DIR (ADR-0089, ADR-0100).
  for (const [what, run] of mailTransport?.housekeeping ?? []) {
    app.housekeeping.add(what, run);
  }

  if (worker && delivery?.autoStart !== false) {
    app.addHook('onReady', () => worker.start());
  }
  // After the requests in flight (and every feature's own onClose hook,
  // registered later): the sends in flight finish and are marked.
  app.addHook('onClose', async () => {
    await worker?.stop();
    mailTransport?.close();
  });
}

/**
 * Registers the outbox on the service (see the module comment). Needs the
 * database and housekeeping.
 */
export const outboxPlugin = fastifyPlugin(outbox, {
  name: 'outbox',
  dependencies: ['database', 'housekeeping'],
});
