/**
 * The outbox's worker (ADR-0129): one per instance. It claims due deliveries
 * (./deliveries.ts) in two lanes, mails and POSTs, each a loop of
 * server/db/leasedWorker.ts (ADR-0130), has each
 * worded by the feature that queued its kind (a renderer), sends it over
 * its channel (a mail through ./channels/mailTransport.ts, a POST through
 * ./channels/http.ts), and marks it sent, to be retried, or dead.
 *
 * - **Retries**: exponential backoff with jitter, from 1 s, at most 5
 *   minutes apart, until the delivery's deadline (an alert's: 1 hour);
 *   `Retry-After` on a 429 or 503 is honoured. A retry is the same
 *   delivery: the same Message-ID, the same `webhook-id`, so a receiver
 *   can drop a repeat.
 * - **Slow receivers** hold a slot for 100 ms at most (`slotHoldMs`):
 *   one that answers after 20 s delays nobody else; mails, waiting for
 *   our own SMTP pool, are claimed apart and never make a POST wait.
 * - **The earliest deadline first**: an alert (an hour to arrive) goes
 *   before the link mails queued ahead of it (three days).
 * - **At least once**: a kill between the receiver's answer and the mark
 *   sends the delivery again after its lease.
 *
 * Log lines name a delivery by its id, kind and channel, never by its
 * target, which is a secret (a webhook's URL) or personal (an address).
 */
import type { FastifyBaseLogger } from 'fastify';
import {
  leasedWorker,
  type LeasedWorker,
  type LeasedWorkerSettings,
} from '../db/leasedWorker';
import {
  laneOf,
  type ClaimedDelivery,
  type DeliveriesRepository,
  type Lane,
  type SentCopy,
} from './deliveries';
import { fromHeader, mailOf } from './channels/email';
import {
  outcomeOf,
  requestFor,
  type HttpOutcome,
  type HttpPoster,
} from './channels/http';
import {
  LONGEST_SEND_MS,
  sendFailure,
  type MailTransport,
} from './channels/mailTransport';
import type { ChannelKind, Notice } from './notice';

/**
 * Words for a batch of claimed deliveries of one kind, by delivery id: the
 * feature that queues the kind renders it (loading what it needs, such as
 * a name or a link's token, in statements of its own). `delivered` says
 * an earlier attempt is known to have arrived (its link was used): the
 * delivery is marked sent without sending it again. A delivery missing
 * from the answer is retried.
 */
export type Renderer = (
  deliveries: readonly ClaimedDelivery[],
) => Promise<ReadonlyMap<string, Notice | 'delivered'>>;

/** Retries: the first after about a second, doubling up to 5 minutes. */
export const DEFAULT_RETRY = { firstDelayMs: 1_000, maxDelayMs: 5 * 60_000 };

/**
 * The lanes' loops (ADR-0130). POSTs: 50 slots; a POST waiting for its
 * receiver longer than 100 ms gives its slot up (its words, signature
 * and connection are done by then; what is left is a wait): at 1 s,
 * receivers answering after 5 s let 20 start a second, and 1,000 sites'
 * alerts took 60 s to go out (`npm run bench:alerts`). Up to 1,000 in
 * flight (a socket and a claimed row each; the lease bounds how long).
 * Mails: 50, each keeping its slot, since what it waits for is the
 * transport's own pool (./channels/mailTransport.ts, 10 connections):
 * at most 40 wait inside it, where an alert's mail claimed later waits
 * behind them; with slots given up, thousands did (under the sign-up
 * load, 45 s). A
 * claim takes at most a lane's free slots: 50 rather than 20 makes a
 * third of the claim statements. The POSTs' lane claims after a POST
 * ends only while behind: its deliveries become due by a commit that
 * wakes it (the monitor's state change, a mark or a death that leaves a
 * stream's next delivery due, a retry's timer) or at the poll; claiming
 * after every end, half of its claims during an incident found nothing
 * (5 a second, about 2 ms each on PGlite; docs/performance.md).
 */
export const LANE_LOOPS: Readonly<
  Record<
    Lane,
    Pick<
      LeasedWorkerSettings,
      'concurrency' | 'slotHoldMs' | 'maxInFlight' | 'claimAfterWork'
    >
  >
> = {
  mail: { concurrency: 50 },
  http: {
    concurrency: 50,
    slotHoldMs: 100,
    maxInFlight: 1_000,
    claimAfterWork: 'whenBehind',
  },
};
/** The least time between two claims while not behind (ms). */
const CLAIM_GAP_MS = 100;
/** Sent deliveries marked by one statement at most, and how long one waits for others (ms). */
const MARK_BATCH = 50;
const MARK_GATHER_MS = 20;

/**
 * How often deliveries whose lease ended are made due again (ms), from
 * the first claim on: a worker killed mid-send holds them for its lease
 * (over 6 minutes), so a few seconds more cost nothing, and the claim
 * itself stays one index scan.
 */
const RECLAIM_EVERY_MS = 10_000;
/**
 * The outbox's table is analyzed after a full claim (a backlog) at most
 * this often (ms), on both engines. With statistics taken while nothing
 * was pending, the planner joins a claim's rows through the lane's
 * partial index row by row, and each claim costs in proportion to the
 * backlog: 100,000 finished deliveries and 5,000 due, a claim of 50 took
 * 264 ms on PostgreSQL and 185 ms on PGlite, and 7.4 and 7.9 ms once
 * analyzed (24 to 36 times less; the analyze, of a sample, took 20 and
 * 32 ms; `npm run bench:claim`). PGlite has no autovacuum; PostgreSQL's
 * comes a minute or more after a backlog has formed, and on a large table
 * much later (ADR-0130).
 */
const ANALYZE_EVERY_MS = 30_000;
/** How long after its claim a send may start (ms); see DEFAULT_LEASE_MS. */
const SEND_START_WINDOW_MS = 30_000;
/** The time a send keeps after it ends for its mark (ms). */
const MARK_MARGIN_MS = 30_000;
/**
 * How long a claim holds (ms): a send starts within 30 s of its claim,
 * takes at most {@link LONGEST_SEND_MS} (a mail's: 310 s; a POST's 10 s is
 * far shorter), and its mark gets 30 s: 370 s.
 */
export const DELIVERY_LEASE_MS =
  SEND_START_WINDOW_MS + LONGEST_SEND_MS + MARK_MARGIN_MS;

/** How a send ended, whatever its channel. */
export type SendOutcome =
  | {
      ok: true;
      status?: number | undefined;
      copy?: SentCopy | undefined;
      via: 'smtp' | 'file' | 'http';
    }
  | Extract<HttpOutcome, { ok: false }>;

/** A notice to send over one channel, to one destination. */
export interface SendRequest {
  channel: ChannelKind;
  /** The address or URL. */
  target: string;
  /** A webhook's signing secret; null otherwise. */
  secret: string | null;
  notice: Notice;
  /** The delivery's id in Message-IDs and `webhook-id`s. */
  id: string;
}

/** What the worker needs of the service. */
export interface DelivererSettings {
  /** `PRODUCT_NAME`: a mail's sender name, heading and signature. */
  productName: string;
  /** `PUBLIC_URL`: the Message-IDs' host. */
  publicUrl: string;
  /** `MAIL_FROM`. */
  mailFrom: string;
  /** The mail transport; undefined: mails wait (tests that send none). */
  mail: MailTransport | undefined;
  /** POSTs under the monitor's SSRF rules. */
  post: () => HttpPoster;
  /** How a kind is worded, by kind. */
  renderers: ReadonlyMap<string, Renderer>;
  /** How often other instances' deliveries and retries are looked for (ms). */
  pollMs: number;
  retry?: Partial<typeof DEFAULT_RETRY> | undefined;
  /** The embedded engine: one process, so claims left at start are orphans. */
  embedded: boolean;
  log: FastifyBaseLogger;
  /** The clock a claim's start window is timed on (ms, monotonic). */
  clock?: (() => number) | undefined;
}

/** The worker's controls. */
export interface Deliverer {
  /** Retries what waits, then delivers, and looks again every poll. */
  start(): Promise<void>;
  /**
   * Looks for due deliveries now (after a commit that queued one): in
   * `lane` only, when all that was queued is in it (a sign-up's mail wakes
   * no POST's claim); in both without it.
   */
  wake(lane?: Lane): void;
  /** Resolves once nothing due is left and nothing is in flight (tests). */
  drain(): Promise<void>;
  /** Stops claiming, lets the sends in flight finish and marks them. */
  stop(): Promise<void>;
  /**
   * Sends a notice at once, outside the queue ("Send a test alert"): the
   * same channel code, the same rules, no retry.
   *
   * @returns how it ended: `ok`, or the error in our words and the status
   */
  sendNow(request: SendRequest): Promise<SendOutcome>;
}

/** A claimed delivery with its words, and when its send must start by. */
interface Claimed {
  delivery: ClaimedDelivery;
  notice: Notice | 'delivered' | undefined;
  startBy: number;
}

/**
 * @param repository the outbox's statements
 * @param settings the product, the channels, the renderers, the poll
 * @returns the worker; nothing runs before `start` (or `drain`)
 */
export function deliverer(
  repository: DeliveriesRepository,
  settings: DelivererSettings,
): Deliverer {
  const retry = { ...DEFAULT_RETRY, ...settings.retry };
  const clock = settings.clock ?? (() => performance.now());
  const { log } = settings;
  const from = fromHeader(settings.mailFrom, settings.productName);
  const host = new URL(settings.publicUrl).hostname;
  const idPrefix =
    settings.productName.toLowerCase().replace(/[^a-z0-9]+/g, '') || 'vigil';

  /**
   * The backoff before attempt `attempts + 1`, with ±20 % jitter, never
   * more than `maxDelayMs` (the cap after the jitter: "at most 5 minutes
   * apart"), in ms.
   */
  function delayOf(attempts: number): number {
    const base = retry.firstDelayMs * 2 ** Math.max(0, attempts - 1);
    return Math.min(
      retry.maxDelayMs,
      Math.round(base * (0.8 + 0.4 * Math.random())),
    );
  }

  /** Sends one notice over its channel; never throws for the channel's failure. */
  async function send(request: SendRequest): Promise<SendOutcome> {
    const { channel, notice } = request;
    if (channel === 'email') {
      if (!settings.mail) {
        return { ok: false, error: 'no mail is sent here', gone: false };
      }
      const mail = mailOf(notice, {
        from,
        to: request.target,
        messageId: `<${idPrefix}-${request.id}@${host}>`,
        productName: settings.productName,
      });
      try {
        await settings.mail.send(mail);
      } catch (error) {
        const failure = sendFailure(error);
        // A refused recipient is refused again: no retry (a 5xx, RFC 5321).
        return {
          ok: false,
          error: failure.summary,
          gone: false,
          ...(failure.permanent && { retryAfterMs: Infinity }),
        };
      }
      const redact = (text: string) =>
        (notice.redact ?? []).reduce(
          (kept, secret) =>
            secret === '' ? kept : kept.split(secret).join('…'),
          text,
        );
      return {
        ok: true,
        copy: { subject: redact(mail.subject), text: redact(mail.text) },
        via: settings.mail.via,
      };
    }
    const httpRequest = requestFor(channel, notice, {
      id: `msg_${request.id}`,
      secret: request.secret,
      at: new Date(),
    });
    const outcome = outcomeOf(
      await settings.post()(request.target, httpRequest),
    );
    return outcome.ok ? { ...outcome, via: 'http' } : outcome;
  }

  /** Sent deliveries waiting for their mark, and when they are marked. */
  let toMark: {
    delivery: ClaimedDelivery;
    copy: SentCopy | undefined;
    status: number | undefined;
    via: 'smtp' | 'file' | 'http' | undefined;
    marked: () => void;
  }[] = [];
  let marking: NodeJS.Timeout | undefined;

  /** Marks what has gathered; a failed batch mark is retried one by one. */
  async function markGathered(): Promise<void> {
    clearTimeout(marking);
    marking = undefined;
    const batch = toMark;
    toMark = [];
    if (batch.length === 0) return;
    let followed = false;
    try {
      followed = await repository.markSent(batch);
    } catch (error) {
      log.warn(
        { err: error, deliveries: batch.length },
        'could not mark a batch of deliveries sent; marking each on its own',
      );
      for (const one of batch) {
        const line = { id: one.delivery.id, kind: one.delivery.kind };
        try {
          followed = (await repository.markSent([one])) || followed;
          continue;
        } catch (failure) {
          if (one.copy === undefined) {
            log.error(
              { err: failure, delivery: line },
              'could not mark a delivery sent; it goes out again after its lease',
            );
            continue;
          }
        }
        try {
          // The copy is a record; the mark is what stops a second send.
          followed =
            (await repository.markSent([{ ...one, copy: undefined }])) ||
            followed;
          log.warn({ delivery: line }, 'delivery marked sent without its copy');
        } catch (failure) {
          log.error(
            { err: failure, delivery: line },
            'could not mark a delivery sent; it goes out again after its lease',
          );
        }
      }
    }
    for (const { marked } of batch) marked();
    // The next delivery of a stream is due once the one before it is sent;
    // the POSTs' lane claims only when told (LANE_LOOPS).
    if (followed) for (const loop of both) loop.wake();
  }

  function markLater(
    delivery: ClaimedDelivery,
    copy: SentCopy | undefined,
    status: number | undefined,
    via: 'smtp' | 'file' | 'http' | undefined,
  ): Promise<void> {
    return new Promise<void>((marked) => {
      toMark.push({ delivery, copy, status, via, marked });
      if (toMark.length >= MARK_BATCH) void markGathered();
      else
        marking ??= setTimeout(
          () => void markGathered(),
          MARK_GATHER_MS,
        ).unref();
    });
  }

  /** When expired leases are next looked for (see {@link RECLAIM_EVERY_MS}). */
  let reclaimAt = -Infinity;
  /** When the outbox's statistics may next be refreshed. */
  let analyzeAt = -Infinity;

  async function claim(lane: Lane, limit: number): Promise<Claimed[]> {
    if (clock() >= reclaimAt) {
      reclaimAt = clock() + RECLAIM_EVERY_MS;
      const reclaimed = await repository.reclaimExpired();
      if (reclaimed > 0) {
        log.warn(
          { deliveries: reclaimed },
          'deliveries whose worker stopped answering are due again',
        );
      }
    }
    const startBy = clock() + SEND_START_WINDOW_MS;
    const claimed = await repository.claim(limit, DELIVERY_LEASE_MS, lane);
    if (claimed.length === limit && clock() >= analyzeAt) {
      analyzeAt = clock() + ANALYZE_EVERY_MS;
      await repository.refreshStatistics().catch((error: unknown) => {
        log.warn({ err: error }, 'could not refresh the outbox statistics');
      });
    }
    const byKind = new Map<string, ClaimedDelivery[]>();
    for (const delivery of claimed) {
      byKind.set(delivery.kind, [
        ...(byKind.get(delivery.kind) ?? []),
        delivery,
      ]);
    }
    const notices = new Map<string, Notice | 'delivered'>();
    await Promise.all(
      [...byKind].map(async ([kind, deliveries]) => {
        const render = settings.renderers.get(kind);
        if (!render) return;
        try {
          for (const [id, notice] of await render(deliveries)) {
            notices.set(id, notice);
          }
        } catch (error) {
          log.error({ err: error, kind }, 'could not word a kind of delivery');
        }
      }),
    );
    return claimed.map((delivery) => ({
      delivery,
      notice: notices.get(delivery.id),
      startBy,
    }));
  }

  async function work({ delivery, notice, startBy }: Claimed): Promise<void> {
    const line = {
      id: delivery.id,
      kind: delivery.kind,
      channel: delivery.channel,
      attempts: delivery.attempts,
    };
    if (clock() > startBy) {
      await repository.release([delivery]);
      loops[laneOf(delivery.channel)].wake();
      return;
    }
    if (notice === 'delivered') {
      await markLater(delivery, undefined, undefined, undefined);
      return;
    }
    const outcome: SendOutcome = notice
      ? await send({
          channel: delivery.channel,
          target: delivery.target,
          secret: delivery.secret,
          notice,
          id: `${delivery.id}-${delivery.createdAt.getTime()}`,
        }).catch((error: unknown) => {
          log.error({ err: error, delivery: line }, 'a delivery failed to run');
          return { ok: false, error: 'it could not be sent', gone: false };
        })
      : { ok: false, error: 'it could not be worded', gone: false };
    if (outcome.ok) {
      log.info({ delivery: line }, 'delivery handed over');
      await markLater(delivery, outcome.copy, outcome.status, outcome.via);
      return;
    }
    const delayMs = Math.max(
      delayOf(delivery.attempts),
      outcome.retryAfterMs ?? 0,
    );
    const state = await repository.markFailed(delivery, {
      error: outcome.error,
      status: outcome.status,
      gone: outcome.gone,
      delayMs: Number.isFinite(delayMs) ? delayMs : 366 * 24 * 3_600_000,
    });
    if (state === 'pending') {
      loops[laneOf(delivery.channel)].wakeIn(delayMs);
      log.warn(
        { delivery: { ...line, error: outcome.error } },
        'delivery not made yet; will retry',
      );
    } else if (state === 'dead') {
      log.error(
        { delivery: { ...line, error: outcome.error } },
        'delivery given up',
      );
      // Its owner feature may have queued a notice of it (a mail), and the
      // next delivery of its stream is due.
      for (const loop of both) loop.wake();
    }
  }

  const laneLoop = (lane: Lane): LeasedWorker<Claimed> =>
    leasedWorker<Claimed>(
      {
        claim: (limit) => claim(lane, limit),
        work,
        release: (items) =>
          repository.release(items.map(({ delivery }) => delivery)),
      },
      {
        ...LANE_LOOPS[lane],
        pollMs: settings.pollMs,
        claimGapMs: CLAIM_GAP_MS,
        onStop: 'finish',
        what: lane === 'mail' ? 'mails' : 'POSTs',
        log,
      },
    );
  const loops: Readonly<Record<Lane, LeasedWorker<Claimed>>> = {
    mail: laneLoop('mail'),
    http: laneLoop('http'),
  };
  const both = Object.values(loops);

  return {
    async start() {
      await repository.retryNow(settings.embedded);
      for (const loop of both) loop.start();
    },
    wake(lane) {
      if (lane) loops[lane].wake();
      else for (const loop of both) loop.wake();
    },
    async drain() {
      // A POST's death may queue a mail: again until neither had work.
      for (;;) {
        const took = await Promise.all(both.map((loop) => loop.drain()));
        if (took.every((count) => count === 0)) return;
      }
    },
    async stop() {
      await Promise.all(both.map((loop) => loop.stop()));
      await markGathered();
    },
    sendNow: send,
  };
}
