/**
 * Where mail goes (ADR-0095, ADR-0100): over SMTP with
 * nodemailer (`SMTP_URL`, DKIM-signed when configured), or, without
 * `SMTP_URL`, into files a person running the service reads with
 * `npm run mail`. Nothing here pretends to have sent: a file transport
 * says `file`, and the outbox records it so.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { lstat, opendir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import nodemailer from 'nodemailer';
import type { ComposedMail } from './email';
import type { SmtpJob, SmtpResult, SmtpWorkerData } from './smtpWorker';

/** DKIM signing (RFC 6376), done by nodemailer. */
export interface DkimSettings {
  domainName: string;
  keySelector: string;
  /** The private key, PEM. */
  privateKey: string;
}

/** How mail leaves the service. */
export type MailTransportSettings =
  | { kind: 'smtp'; url: string; dkim?: DkimSettings }
  | { kind: 'file'; dir: string };

/** A transport the sender uses: `send` resolves once the mail is accepted. */
export interface MailTransport {
  via: 'smtp' | 'file';
  /**
   * What housekeeping deletes of the transport's own (ADR-0089): the file
   * transport's mails after 7 days ({@link deleteOldMailFiles}); nothing
   * for SMTP, which keeps nothing.
   */
  housekeeping: readonly (readonly [string, () => Promise<number>])[];
  /**
   * @throws nodemailer's error when the server refuses or cannot be reached
   *   (`code`, `command`, `responseCode`: see {@link sendFailure})
   */
  send(mail: ComposedMail): Promise<void>;
  close(): void;
}

/**
 * nodemailer's timeouts (ms). Its defaults (2 and 10 minutes) would outlast
 * a graceful shutdown and the sender's lease. In nodemailer 10,
 * `connectionTimeout` bounds the whole setting up of a connection: the DNS
 * lookup, every address tried, the TLS handshake, the greeting and a
 * STARTTLS upgrade (`greetingTimeout` only shortens the greeting's share);
 * `socketTimeout` bounds each wait for the server while the session runs
 * (it is the socket's idle time, restarted by every byte).
 */
export const SMTP_TIMEOUTS = {
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 30_000,
} as const;

/**
 * The most replies one send waits for after the connection is set up: on
 * a new connection `EHLO`, `STARTTLS`, `EHLO` again, `AUTH LOGIN`'s three
 * (user name, password, result; `PLAIN` needs one), `MAIL FROM`, `RCPT TO`
 * (one recipient), `DATA` and the reply to the message's end: 10. On a
 * pooled connection already set up, fewer (`RSET`, then the last four).
 */
const REPLIES_PER_SEND = 10;

/**
 * The longest one SMTP send can take (ms), from nodemailer's timeouts
 * ({@link SMTP_TIMEOUTS}): the connection's setting up, then each reply
 * within the socket's timeout: 10 s + 10 × 30 s = 310 s. A server that
 * keeps a reply coming one byte at a time restarts the socket's timeout
 * and could take longer: that would be a fault of the relay we are
 * configured with, not of a recipient, and the cost is a mail sent twice
 * (ADR-0095's at least once). The file transport takes milliseconds.
 */
export const LONGEST_SEND_MS =
  SMTP_TIMEOUTS.connectionTimeout +
  REPLIES_PER_SEND * SMTP_TIMEOUTS.socketTimeout;

/**
 * How long the file transport's mails are kept (ms): 7 days, as the copies
 * of sent mails in the outbox (ADR-0089, `dropOldCopies` in
 * server/outbox/deliveries.ts). A sign-in link in one has long expired by then
 * (15 minutes), a confirmation link too (24 hours).
 */
export const MAIL_FILE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The names the file transport gives its mails ({@link fileStem}: the UTC
 * time with `-` for `:` and `.`, the Message-ID's local part, then `.eml`
 * or `.txt`): nothing else in the directory is ever deleted.
 */
const MAIL_FILE_NAME =
  /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-[A-Za-z0-9._-]+\.(?:eml|txt)$/;

/**
 * Deletes the file transport's mails last written more than 7 days ago
 * ({@link MAIL_FILE_RETENTION_MS}), for housekeeping: the links they hold
 * must not be kept longer than the outbox keeps its copies (ADR-0089).
 *
 * It reads the directory entry by entry (never the whole listing at
 * once), deletes at most `limit` files per call (the next call goes on),
 * and deletes only regular files named as the transport names its mails:
 * no directory, no symbolic link (nor what it points at), nothing a person
 * put there. A file gone meanwhile (another instance's housekeeping) is
 * skipped.
 *
 * @param dir the file transport's directory (`$DATA_DIR/mail`); missing
 *   is nothing to delete
 * @param options `maxAgeMs`, the age (ms, by the file's modification time)
 *   past which a mail goes (default 7 days); `limit`, the most files one
 *   call deletes (default 1,000)
 * @returns how many files it deleted
 * @throws the file system's error other than a missing file or directory
 */
export async function deleteOldMailFiles(
  dir: string,
  options: { maxAgeMs?: number; limit?: number } = {},
): Promise<number> {
  const cutoff = Date.now() - (options.maxAgeMs ?? MAIL_FILE_RETENTION_MS);
  const limit = options.limit ?? 1_000;
  const missing = (error: unknown) =>
    (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
  let entries;
  try {
    entries = await opendir(dir);
  } catch (error) {
    if (missing(error)) return 0;
    throw error;
  }
  let deleted = 0;
  // Leaving the loop early closes the directory.
  for await (const entry of entries) {
    if (deleted >= limit) break;
    if (!MAIL_FILE_NAME.test(entry.name)) continue;
    const path = join(dir, entry.name);
    try {
      const stats = await lstat(path);
      if (!stats.isFile() || stats.mtimeMs >= cutoff) continue;
      await unlink(path);
      deleted += 1;
    } catch (error) {
      if (!missing(error)) throw error;
    }
  }
  return deleted;
}

/** The file names of a mail written by the file transport, sortable by time. */
function fileStem(mail: ComposedMail): string {
  const time = new Date().toISOString().replace(/[:.]/g, '-');
  const id = /^<([^@>]+)/.exec(mail.messageId)?.[1] ?? 'mail';
  return `${time}-${id}`;
}

/**
 * The SMTP thread's module (./smtpWorker.ts): beside this one in the
 * source, and `smtp-worker.mjs` beside the bundle that holds this module
 * (scripts/buildServer.ts puts both in dist-server/). esbuild does not
 * rewrite `new URL(…, import.meta.url)`, hence the two names.
 */
const SMTP_WORKER = new URL(
  import.meta.url.endsWith('.mjs') ? './smtp-worker.mjs' : './smtpWorker.ts',
  import.meta.url,
);

/**
 * The SMTP thread's heap (Node's `resourceLimits`, in MB). Left to V8's
 * defaults, the thread's heap grew while it sent: the service was 446 to
 * 476 MB after 10,000 sign-ups with their mails sent (three runs),
 * against 340 and 350 MB with the mails only queued, over the 400 MB
 * target (docs/performance.md); with these limits, 355 to 391 MB (four
 * runs), sending as fast (`npm run bench:api`'s memory step, run on its
 * own). The thread holds at most a lane's mails and nodemailer's pool,
 * far under the old generation's 64 MB; a thread that ran out would
 * end, and its mails would be sent again (`SmtpThreadEnded`).
 */
const SMTP_THREAD_LIMITS = {
  maxYoungGenerationSizeMb: 4,
  maxOldGenerationSizeMb: 64,
};

/**
 * SMTP through nodemailer's pool on a thread of its own (./smtpWorker.ts
 * says why), started at the first mail and started again after it ends.
 * The thread holds the process open only while a mail is in it.
 *
 * @param options nodemailer's SMTP options (cloned to the thread)
 */
function smtpTransport(options: Record<string, unknown>): MailTransport {
  let thread: Worker | undefined;
  let closed = false;
  let nextId = 0;
  const waiting = new Map<
    number,
    { resolve: () => void; reject: (error: Error) => void }
  >();
  const settle = (result: SmtpResult) => {
    const job = waiting.get(result.id);
    if (!job) return;
    waiting.delete(result.id);
    if (waiting.size === 0) thread?.unref();
    if (result.error) {
      // The fields sendFailure reads: code, command, responseCode.
      job.reject(Object.assign(new Error(result.error.message), result.error));
    } else {
      job.resolve();
    }
  };
  const start = (): Worker => {
    const started = new Worker(SMTP_WORKER, {
      workerData: { options } satisfies SmtpWorkerData,
      resourceLimits: SMTP_THREAD_LIMITS,
    });
    let failure = 'ended';
    started.on('message', settle);
    // An uncaught error in the thread: 'exit' follows and fails its mails.
    started.on('error', (error: Error) => {
      failure = `failed: ${error.message}`;
    });
    started.on('exit', () => {
      if (thread === started) thread = undefined;
      const error = new SmtpThreadEnded(`the SMTP thread ${failure}`);
      for (const job of waiting.values()) job.reject(error);
      waiting.clear();
    });
    started.unref();
    return started;
  };
  return {
    via: 'smtp',
    housekeeping: [],
    send(mail) {
      if (closed) return Promise.reject(new Error('the transport is closed'));
      thread ??= start();
      const id = (nextId += 1);
      const sent = new Promise<void>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
      });
      thread.ref();
      thread.postMessage({ id, mail } satisfies SmtpJob);
      return sent;
    },
    close() {
      closed = true;
      if (waiting.size === 0) {
        // The thread says QUIT on the pool's connections, then ends.
        thread?.postMessage(null);
      } else {
        // The outbox closes the transport after its sends are done: a
        // mail still here would wait for its server's timeouts. It fails
        // now, to be sent again (at least once, ADR-0095).
        void thread?.terminate();
      }
    },
  };
}

/**
 * Opens a transport.
 *
 * @param settings SMTP (with its URL, credentials in it) or a directory
 */
export function openMailTransport(
  settings: MailTransportSettings,
): MailTransport {
  if (settings.kind === 'smtp') {
    return smtpTransport({
      url: settings.url,
      pool: true,
      // Each connection waits a round trip per command. 10 carry an
      // incident's alert mails beside the sign-ups' confirmation mails
      // (about 450 a second in `npm run bench:alerts`); 4 spared the
      // API no CPU. nodemailer's default is 5.
      maxConnections: 10,
      ...SMTP_TIMEOUTS,
      ...(settings.dkim && { dkim: settings.dkim }),
      logger: false,
      debug: false,
    });
  }
  const streamer = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'unix',
  });
  return {
    via: 'file',
    housekeeping: [
      ['mail files past 7 days', () => deleteOldMailFiles(settings.dir)],
    ],
    async send(mail) {
      const { message } = await streamer.sendMail({ ...mail });
      // `buffer: true` gives the whole message as a Buffer.
      if (!Buffer.isBuffer(message)) throw new TypeError('no message buffer');
      // Only the person running the service may read the links.
      mkdirSync(settings.dir, { recursive: true, mode: 0o700 });
      chmodSync(settings.dir, 0o700);
      const stem = join(settings.dir, fileStem(mail));
      writeFileSync(`${stem}.eml`, message, { mode: 0o600 });
      writeFileSync(
        `${stem}.txt`,
        `To: ${mail.to}\nSubject: ${mail.subject}\nDate: ${new Date().toUTCString()}\n\n${mail.text}`,
        { mode: 0o600 },
      );
    },
    close: () => streamer.close(),
  };
}

/**
 * A mail the SMTP thread still held when it ended (the transport closed,
 * or the thread failed): never handed to the server whole, so it is sent
 * again (at least once, ADR-0095).
 */
export class SmtpThreadEnded extends Error {}

/** A send's failure as the sender decides on it and may store it. */
export interface SendFailure {
  /**
   * A refusal of this mail for good: a 5xx reply to `RCPT TO` or `DATA`.
   * Everything else is retried: 4xx replies, a server that cannot be
   * reached, and a 5xx at the greeting, `AUTH` or `MAIL FROM`, which is a
   * fault of our configuration that would otherwise lose every mail queued.
   */
  permanent: boolean;
  /**
   * The reply code, the command and nodemailer's code (`550 RCPT TO
   * EENVELOPE`): never the reply's text, which quotes the address.
   */
  summary: string;
}

/**
 * Reads nodemailer's error (its fields `code`, `command`, `responseCode`;
 * a 4xx or 5xx refusal of the recipient is `EENVELOPE` at `RCPT TO`, a
 * server that cannot be reached `ESOCKET` at `CONN`), or an
 * {@link SmtpThreadEnded}, which is retried.
 */
export function sendFailure(error: unknown): SendFailure {
  if (error instanceof SmtpThreadEnded) {
    return { permanent: false, summary: 'the mail thread ended mid-send' };
  }
  const { code, command, responseCode } = (error ?? {}) as {
    code?: unknown;
    command?: unknown;
    responseCode?: unknown;
  };
  const reply = typeof responseCode === 'number' ? responseCode : undefined;
  const step = typeof command === 'string' ? command.toUpperCase() : '';
  const permanent =
    reply !== undefined &&
    reply >= 500 &&
    reply <= 599 &&
    (step.startsWith('RCPT TO') || step.startsWith('DATA'));
  const summary = [reply, step, typeof code === 'string' ? code : undefined]
    .filter((part) => part !== undefined && part !== '')
    .join(' ');
  return { permanent, summary: summary || 'unknown failure' };
}
