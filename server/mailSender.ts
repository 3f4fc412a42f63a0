/**
 * The outbox's sender (D95 in docs/decisions.md): one per instance. It
 * claims due mails (server/mailOutbox.ts), makes each one's link token,
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
 *   token (the first link then no longer works).
 *
 * Log lines name a mail by its row id and kind, never by its address,
 * subject or link.
 */
import type { FastifyBaseLogger } from 'fastify';
import { newSecret, secretHash } from './accounts';
import {
  composeAlertMail,
  composeMail,
  fromHeader,
  redactedCopy,
  type ComposedMail,
} from './mailMessages';
import type { ClaimedMail, MailOutboxRepository, SentCopy } from './mailOutbox';
import {
  openMailTransport,
  sendFailure,
  type MailTransport,
  type MailTransportSettings,
} from './mailTransport';

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
  /** How long a claim holds (ms; default 5 minutes). */
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

/** Mails claimed per statement, and sent at once. */
const BATCH = 10;
const IN_FLIGHT = 2;
/**
 * How long a wake waits for more mails to gather (ms), so that under load
 * the sender's statements (the claim, the tokens, the mark) run once per
 * batch rather than once per sign-up: they share the service's event loop
 * and, on PGlite, its engine (docs/performance.md, "With mail"). A person
 * waits a tenth of a second longer for a mail.
 */
const GATHER_MS = 100;

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
 *   start is orphaned) and the log
 */
export function mailSender(
  outbox: MailOutboxRepository,
  options: MailOptions,
  context: { productName: string; embedded: boolean; log: FastifyBaseLogger },
): MailSender {
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const pollIntervalMs = options.pollIntervalMs ?? 5_000;
  const from = fromHeader(options.from, context.productName);
  const host = new URL(options.publicUrl).hostname;
  const idPrefix =
    context.productName.toLowerCase().replace(/[^a-z0-9]+/g, '') || 'mail';
  const transport: MailTransport = openMailTransport(options.transport);
  const { log } = context;

  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let gathering: NodeJS.Timeout | undefined;
  /** The soonest retry a run has set (ms from its end), if sooner than a poll. */
  let soonestRetryMs = Infinity;

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

  /** The mail of a claimed row: an alert, or a link mail with its token. */
  function compose(mail: ClaimedMail, token: string | undefined): ComposedMail {
    const common = {
      productName: context.productName,
      publicUrl: options.publicUrl,
      from,
      recipient: mail.recipient,
      name: mail.name,
      messageId: messageId(mail),
    };
    if (mail.kind === 'down' || mail.kind === 'up') {
      if (!mail.details) throw new Error(`alert ${mail.id} has no details`);
      return composeAlertMail({
        ...common,
        kind: mail.kind,
        details: mail.details,
      });
    }
    return composeMail({
      ...common,
      kind: mail.kind,
      newsletter: mail.newsletter,
      token: token ?? '',
    });
  }

  /**
   * Sends one mail; a failure is marked at once, a success by the pass.
   *
   * @param token a link mail's token; undefined for an alert, which has
   *   none
   * @returns its copy to keep once sent, or undefined when it was not
   */
  async function deliver(
    mail: ClaimedMail,
    token: string | undefined,
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
      if (state === 'pending')
        soonestRetryMs = Math.min(soonestRetryMs, delayMs);
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
    // A link mail's copy keeps no token: it would sign someone in.
    const { subject, text } =
      token === undefined ? composed : redactedCopy(composed, token);
    return { subject, text };
  }

  /** One claim and its sends; how many mails it claimed. */
  async function pass(): Promise<number> {
    const claimed = await outbox.claim(BATCH, leaseMs);
    if (claimed.length === 0) return 0;
    // Link mails get their token now; alerts carry none.
    const linked = claimed.flatMap((mail) =>
      mail.kind === 'confirm' || mail.kind === 'signin'
        ? [{ mail, kind: mail.kind, token: newSecret() }]
        : [],
    );
    const tokens = new Map(linked.map(({ mail, token }) => [mail.id, token]));
    const live = await outbox.mint(
      linked.map(({ mail, kind, token }) => ({
        outboxId: mail.id,
        kind,
        accountId: mail.accountId,
        tokenHash: secretHash(token),
      })),
    );
    const queue = [...claimed];
    const sent: { mail: ClaimedMail; copy: SentCopy | undefined }[] = [];
    const worker = async () => {
      for (let mail = queue.shift(); mail; mail = queue.shift()) {
        const token = tokens.get(mail.id);
        if (token === undefined || live.has(mail.id)) {
          const copy = await deliver(mail, token);
          if (copy) sent.push({ mail, copy });
        }
        // Its link was used: an earlier attempt arrived before a crash.
        else sent.push({ mail, copy: undefined });
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    // One statement marks the batch sent (one commit, not one per mail).
    await outbox.markSent(sent, transport.via);
    return claimed.length;
  }

  /** The next look: at the next poll, or at this run's soonest retry. */
  function schedule(): void {
    if (stopped) return;
    clearTimeout(timer);
    const delay = Math.min(pollIntervalMs, soonestRetryMs);
    soonestRetryMs = Infinity;
    timer = setTimeout(() => void run(), delay).unref();
  }

  /** Runs passes until nothing due is left; one run at a time. */
  function run(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        while (!stopped && (await pass()) > 0);
      } while (again && !stopped);
    })()
      .catch((error: Error) => {
        // Serialized by server/logging.ts's errorForLog.
        log.warn({ err: error }, 'could not send mail; will retry');
      })
      .finally(() => {
        running = undefined;
        schedule();
      });
    return running;
  }

  return {
    async start() {
      await outbox.retryNow(context.embedded);
      void run();
    },
    wake() {
      if (stopped || gathering) return;
      gathering = setTimeout(() => {
        gathering = undefined;
        void run();
      }, GATHER_MS).unref();
    },
    async drain() {
      await run();
      // A wake during the run's last claim may have started another.
      while (running) await running;
    },
    async stop() {
      // Mails queued in the last tenth of a second go out before the stop,
      // like the sends in flight.
      const gathered = gathering !== undefined;
      clearTimeout(gathering);
      gathering = undefined;
      if (gathered && !stopped) await run();
      stopped = true;
      clearTimeout(timer);
      await running;
      transport.close();
    },
  };
}
