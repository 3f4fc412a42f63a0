/**
 * Where mail goes (D95, D100 in docs/decisions.md): over SMTP with
 * nodemailer (`SMTP_URL`, DKIM-signed when configured), or, without
 * `SMTP_URL`, into files a person running the service reads with
 * `npm run mail`. Nothing here pretends to have sent: a file transport
 * says `file`, and the outbox records it so.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { ComposedMail } from './mailMessages';

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
   * @throws nodemailer's error when the server refuses or cannot be reached
   *   (`code`, `command`, `responseCode`: see {@link sendFailure})
   */
  send(mail: ComposedMail): Promise<void>;
  close(): void;
}

/**
 * nodemailer's timeouts (ms). Its defaults (2 and 10 minutes) would outlast
 * a graceful shutdown and the sender's lease.
 */
const SMTP_TIMEOUTS = {
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 30_000,
};

/** The file names of a mail written by the file transport, sortable by time. */
function fileStem(mail: ComposedMail): string {
  const time = new Date().toISOString().replace(/[:.]/g, '-');
  const id = /^<([^@>]+)/.exec(mail.messageId)?.[1] ?? 'mail';
  return `${time}-${id}`;
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
    const transporter = nodemailer.createTransport({
      url: settings.url,
      pool: true,
      maxConnections: 2,
      ...SMTP_TIMEOUTS,
      ...(settings.dkim && { dkim: settings.dkim }),
      logger: false,
      debug: false,
    });
    return {
      via: 'smtp',
      async send(mail) {
        await transporter.sendMail({ ...mail });
      },
      close: () => transporter.close(),
    };
  }
  const streamer = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'unix',
  });
  return {
    via: 'file',
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
 * server that cannot be reached `ESOCKET` at `CONN`).
 */
export function sendFailure(error: unknown): SendFailure {
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
