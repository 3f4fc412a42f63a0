/**
 * The outbox's sender ([D95](../../../docs/decisions.md#D95)): one per instance. It
 * claims due mails (server/mail/outbox/mailOutbox.ts), makes each one's link token,
 * sends it, and marks it sent, to be retried, or failed.
 *
 * - A mail is claimed with a lease, so that a sender killed mid-send leaves
 *   it to another sender once the lease ends, and sends are never inside
 *   a transaction.
 * - A failure that may pass (a 4xx reply, a server that cannot be reached)
 *   is retried with jittered exponential backoff; a 5xx reply to the
 *   recipient or the message is final, and logged without the address.
 * - Delivery is at least once: a kill between the server's acceptance and
 *   the mark sends the mail again, with the same Message-ID and a new
 *   token (the first link then no longer works). A batch's mark that fails
 *   is retried mail by mail, so one mail's failing mark costs only that
 *   mail a second send.
 * - The lease ({@link DEFAULT_LEASE_MS}) outlasts the longest send the
 *   transport's timeouts allow and its mark; a pass starts no send late in
 *   it.
 *
 * Log lines name a mail by its row id and kind, never by its address,
 * subject or link.
 */
import type { FastifyBaseLogger } from 'fastify';
import { newSecret, secretHash } from '../../accounts/index';
import {
  composeMail,
  redactedCopy,
  watchedHost,
  type ComposedMail,
} from './mailMessages';
import { leasedWorker } from '../../db/leasedWorker';
import {
  fromHeader,
  LONGEST_SEND_MS,
  sendFailure,
  type MailTransport,
  type MailTransportSettings,
} from '../../outbox/index';
import type { ClaimedMail, MailOutboxRepository, SentCopy } from './mailOutbox';

/** How the service sends mail (`ServerOptions.mail`). */
export interface MailOptions {
  /** `PUBLIC_URL`: every link in a mail is built on it, never on `Host`. */
  publicUrl: string;
  /** `MAIL_FROM`: a bare address or one with a display name. */
  from: string;
  transport: MailTransportSettings;
  /** How often other instances' mails and retries are looked for (ms; default 5 s). */
  pollIntervalMs?: number;
  /** Backoff of retries (ms); defaults {@link DEFAULT_RETRY}. */
  retry?: Partial<typeof DEFAULT_RETRY>;
  /**
   * How long a claim holds (ms; default {@link DEFAULT_LEASE_MS}); at least
   * {@link LONGEST_SEND_MS} + {@link MARK_MARGIN_MS} + 1 s.
   */
  leaseMs?: number;
  /** Start sending when the server is built (default true). */
  autoStart?: boolean;
}

/**
 * Retries: the first after about a second, doubling up to 5 minutes, so a
 * mail arrives within about half a minute of a 30 s outage's end; given up
 * 72 hours after it was queued.
 */
export const DEFAULT_RETRY = {
  firstDelayMs: 1_000,
  maxDelayMs: 5 * 60_000,
  giveUpAfterMs: 72 * 60 * 60_000,
};

/** Mails sent at once: the loop's slots (server/db/leasedWorker.ts). */
const IN_FLIGHT = 5;
/** Sent mails marked by one statement at most. */
const MARK_BATCH = 10;

/**
 * The time (ms) a send keeps, after it ends, for its mark: the gathered
 * marks' statement and, should it fail, each mail's own.
 */
export const MARK_MARGIN_MS = 30_000;

/**
 * How long (ms) after its claim a send may start: the claim and the
 * tokens' statement come first; a slot's send then starts at once, in
 * milliseconds while the database is well. A send not started by then
 * is given back to the queue (due at once), so that no send ends after
 * the lease.
 */
const SEND_START_WINDOW_MS = 30_000;

/**
 * How long a claim holds (ms), so that no other sender takes a mail while
 * this one may still send it (a second copy, whose new token would
 * invalidate the first copy's link): a send starts at most
 * `SEND_START_WINDOW_MS` (30 s) after the claim, takes at most
 * {@link LONGEST_SEND_MS} (server/mail/outbox/mailTransport.ts: nodemailer's
 * `connectionTimeout` 10 s for the whole setup, then at most 10 replies
 * each within `socketTimeout` 30 s: 310 s), and its mark gets
 * {@link MARK_MARGIN_MS} (30 s): 30 + 310 + 30 = 370 s, 6 min 10 s. The
 * clock starts before the claim's statement is sent, so the database's
 * lease, begun when the statement runs, ends later than this count.
 */
export const DEFAULT_LEASE_MS =
  SEND_START_WINDOW_MS + LONGEST_SEND_MS + MARK_MARGIN_MS;

/**
 * How long (ms) a claim waits after the one before, so that under load
 * the sender's statements (the claim, the tokens, the mark) run once per
 * few mails rather than once per sign-up: they share the service's event
 * loop and, on PGlite, its engine (docs/performance.md, "With mail"). A
 * person waits at most a tenth of a second longer for a mail.
 */
const CLAIM_GAP_MS = 100;
/** How long (ms) a sent mail waits for others to be marked with it. */
const MARK_GATHER_MS = 20;

/** The sender's controls. */
export interface MailSender {
  /** Retries what waits, then sends, and looks again every poll interval. */
  start(): Promise<void>;
  /**
   * Looks for due mails shortly (after a commit that queued one), gathering
   * the mails queued meanwhile; never waits.
   */
  wake(): void;
  /** Resolves once no due mail is left unclaimed (for tests). */
  drain(): Promise<void>;
  /**
   * Sends what a wake was gathering, lets the sends in flight finish, stops
   * claiming and closes the transport.
   */
  stop(): Promise<void>;
}

/**
 * @param outbox the outbox's repository
 * @param options the mail options
 * @param context the product's name (the mails' sender name), whether the
 *   database is the embedded one (one process: a mail left `sending` at
 *   start is orphaned), the log, and the clock that times a pass against
 *   its lease (ms, monotonic; default `performance.now`; tests set it)
 * @throws RangeError when `options.leaseMs` is too short for one send and
 *   its mark
 */
export function mailSender(
  outbox: MailOutboxRepository,
  options: MailOptions,
  context: {
    productName: string;
    embedded: boolean;
    log: FastifyBaseLogger;
    /** The outbox's transport (server/outbox/), shared; the outbox closes it. */
    transport: MailTransport;
    clock?: () => number;
  },
): MailSender {
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  /** How long after its claim a pass may start a send (ms). */
  const startWindowMs = Math.min(
    SEND_START_WINDOW_MS,
    leaseMs - LONGEST_SEND_MS - MARK_MARGIN_MS,
  );
  if (!(startWindowMs >= 1_000)) {
    throw new RangeError(
      `mail leaseMs ${leaseMs} is shorter than a send (${LONGEST_SEND_MS} ms) and its mark (${MARK_MARGIN_MS} ms) plus 1 s`,
    );
  }
  const clock = context.clock ?? (() => performance.now());
  const pollIntervalMs = options.pollIntervalMs ?? 5_000;
  const from = fromHeader(options.from, context.productName);
  const host = new URL(options.publicUrl).hostname;
  const idPrefix =
    context.productName.toLowerCase().replace(/[^a-z0-9]+/g, '') || 'mail';
  const { transport } = context;
  const { log } = context;

  /** The Message-ID: the same on every attempt, so receivers can drop a repeat. */
  const messageId = (mail: ClaimedMail) =>
    `<${idPrefix}-${mail.id}-${mail.createdAt.getTime()}@${host}>`;

  function delayOf(attempts: number): number {
    const base = Math.min(
      retry.maxDelayMs,
      retry.firstDelayMs * 2 ** Math.max(0, attempts - 1),
    );
    return Math.round(base * (0.8 + 0.4 * Math.random()));
  }

  /** The mail of a claimed row, with its link's token. */
  function compose(mail: ClaimedMail, token: string): ComposedMail {
    return composeMail({
      productName: context.productName,
      publicUrl: options.publicUrl,
      from,
      recipient: mail.recipient,
      name: mail.name,
      messageId: messageId(mail),
      kind: mail.kind,
      newsletter: mail.newsletter,
      siteHost: watchedHost(mail.siteUrl),
      token,
    });
  }

  /**
   * Sends one mail; a failure is marked at once, a success by the pass.
   *
   * @param token its link's token
   * @returns its copy to keep once sent, or undefined when it was not
   */
  async function deliver(
    mail: ClaimedMail,
    token: string,
  ): Promise<SentCopy | undefined> {
    const composed = compose(mail, token);
    const line = { id: mail.id, kind: mail.kind, attempts: mail.attempts };
    try {
      await transport.send(composed);
    } catch (error) {
      const failure = sendFailure(error);
      const delayMs = delayOf(mail.attempts);
      const state = await outbox.markFailed(mail, {
        error: failure.summary,
        permanent: failure.permanent,
        delayMs,
        giveUpAfterMs: retry.giveUpAfterMs,
      });
      if (state === 'pending') worker.wakeIn(delayMs);
      if (state === 'failed') {
        log.error(
          { mail: { ...line, error: failure.summary } },
          'mail not sent, for good',
        );
      } else {
        log.warn(
          { mail: { ...line, error: failure.summary } },
          'mail not sent yet; will retry',
        );
      }
      return undefined;
    }
    log.info({ mail: { ...line, via: transport.via } }, 'mail handed over');
    // The copy keeps no token: it would sign someone in.
    const { subject, text } = redactedCopy(composed, token);
    return { subject, text };
  }

  /**
   * Marks sent mails: the batch in one statement (one commit), and should
   * that fail, each mail on its own, with its copy, else without it, so
   * that a mark failing for one mail leaves none of the others `sending`
   * (issue 46), to be sent again with a new token after the lease. A mail
   * whose own mark fails is logged by id and kind, and goes out again
   * after its lease (at least once, [D95](../../../docs/decisions.md#D95)). Raises nothing.
   */
  async function settle(
    sent: readonly { mail: ClaimedMail; copy: SentCopy | undefined }[],
  ): Promise<void> {
    try {
      await outbox.markSent(sent, transport.via);
      return;
    } catch (error) {
      log.warn(
        { err: error, mails: sent.length },
        'could not mark a batch of mails sent; marking each on its own',
      );
    }
    for (const { mail, copy } of sent) {
      const line = { id: mail.id, kind: mail.kind, attempts: mail.attempts };
      try {
        await outbox.markSent([{ mail, copy }], transport.via);
        continue;
      } catch (error) {
        if (copy === undefined) {
          log.error(
            { err: error, mail: line },
            'could not mark a mail sent; it goes out again after its lease',
          );
          continue;
        }
      }
      try {
        // The copy is a record; the mark is what stops a second send.
        await outbox.markSent([{ mail, copy: undefined }], transport.via);
        log.warn({ mail: line }, 'mail marked sent without its copy');
      } catch (error) {
        log.error(
          { err: error, mail: line },
          'could not mark a mail sent; it goes out again after its lease',
        );
      }
    }
  }

  /**
   * Gives a claimed mail whose send did not start in time back to the
   * queue, due at once.
   */
  async function release(mail: ClaimedMail): Promise<void> {
    const state = await outbox.markFailed(mail, {
      error: 'not started within the lease',
      permanent: false,
      delayMs: 0,
      giveUpAfterMs: retry.giveUpAfterMs,
    });
    log.info(
      {
        mail: { id: mail.id, kind: mail.kind, attempts: mail.attempts, state },
      },
      'mail given back to the queue: its lease was too short for its send',
    );
  }

  /** A claimed mail, with its token and when its send must start by. */
  interface Claimed {
    mail: ClaimedMail;
    /** Its link's token. */
    token: string;
    /** Whether its token is the live one (false: its link was used). */
    live: boolean;
    /** The clock's time after which its send may not start. */
    startBy: number;
  }

  /** Claims mails and makes the link mails' tokens, in two statements. */
  async function claim(limit: number): Promise<Claimed[]> {
    // Before the claim's statement: the lease it sets begins later.
    const startBy = clock() + startWindowMs;
    const claimed = await outbox.claim(limit, leaseMs);
    if (claimed.length === 0) return [];
    const tokens = new Map(claimed.map((mail) => [mail.id, newSecret()]));
    const live = await outbox.mint(
      claimed.map((mail) => ({
        outboxId: mail.id,
        kind: mail.kind,
        accountId: mail.accountId,
        tokenHash: secretHash(tokens.get(mail.id) ?? ''),
      })),
    );
    return claimed.map((mail) => ({
      mail,
      token: tokens.get(mail.id) ?? '',
      live: live.has(mail.id),
      startBy,
    }));
  }

  /** Sent mails waiting for their mark, and when they are marked. */
  let toMark: {
    mail: ClaimedMail;
    copy: SentCopy | undefined;
    marked: () => void;
  }[] = [];
  let marking: NodeJS.Timeout | undefined;

  /** Marks what has gathered (see {@link settle}); never raises. */
  async function markGathered(): Promise<void> {
    clearTimeout(marking);
    marking = undefined;
    const batch = toMark;
    toMark = [];
    if (batch.length === 0) return;
    await settle(batch);
    for (const { marked } of batch) marked();
  }

  /** Resolves once the mail's mark has been made (or tried). */
  function markLater(mail: ClaimedMail, copy: SentCopy | undefined) {
    return new Promise<void>((marked) => {
      toMark.push({ mail, copy, marked });
      if (toMark.length >= MARK_BATCH) void markGathered();
      else
        marking ??= setTimeout(
          () => void markGathered(),
          MARK_GATHER_MS,
        ).unref();
    });
  }

  /** One claimed mail: sent and marked, or given back. */
  async function work({ mail, token, live, startBy }: Claimed): Promise<void> {
    try {
      if (clock() > startBy) {
        // Too little of the lease left for a send and its mark.
        await release(mail);
      } else if (live) {
        const copy = await deliver(mail, token);
        if (copy) await markLater(mail, copy);
      }
      // Its link was used: an earlier attempt arrived before a crash.
      else await markLater(mail, undefined);
    } catch (error) {
      // One mail's failure (its failed send's mark, say) is its own.
      log.error(
        {
          err: error,
          mail: { id: mail.id, kind: mail.kind, attempts: mail.attempts },
        },
        'could not settle a mail; it is tried again after its lease',
      );
    }
  }

  const worker = leasedWorker<Claimed>(
    {
      claim,
      work,
      // Claims are never given back: a stop finishes the sends in flight.
      release: () => Promise.resolve(),
    },
    {
      concurrency: IN_FLIGHT,
      pollMs: pollIntervalMs,
      claimGapMs: CLAIM_GAP_MS,
      onStop: 'finish',
      what: 'mails',
      log,
    },
  );

  return {
    async start() {
      await outbox.retryNow(context.embedded);
      worker.start();
    },
    wake() {
      worker.wake();
    },
    drain() {
      return worker.drain();
    },
    async stop() {
      await worker.stop();
      await markGathered();
    },
  };
}
