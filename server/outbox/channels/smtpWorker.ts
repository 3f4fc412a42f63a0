/**
 * The SMTP transport's thread (./mailTransport.ts starts it): nodemailer's
 * pool of connections, its MIME building and DKIM signing run here, beside
 * the service's thread rather than on it. Each command of an SMTP session
 * waits for a reply; on the service's thread, busy with requests (and, on
 * the embedded engine, with the database itself), each reply waited its
 * turn behind them, and an alert's mail took 1.5 s to send instead of
 * 0.1 s (`npm run bench:alerts`, ADR-0130).
 *
 * It imports nothing of ours but types, so that Node runs it as it is,
 * from the source (type stripping) and from the bundle
 * (`dist-server/smtp-worker.mjs`).
 *
 * Messages: in, {@link SmtpJob} (a mail to send) or `null` (close the pool
 * and end); out, {@link SmtpResult} for each job.
 */
import { parentPort, workerData } from 'node:worker_threads';
import nodemailer from 'nodemailer';
import type { ComposedMail } from './email';

/** What the worker is started with (`workerData`). */
export interface SmtpWorkerData {
  /** nodemailer's SMTP options: the URL, pool size, timeouts, DKIM. */
  options: Record<string, unknown>;
}

/** A mail to send, under the id its answer carries. */
export interface SmtpJob {
  id: number;
  mail: ComposedMail;
}

/**
 * The answer to one job: sent, or nodemailer's error as plain fields
 * (an Error's own fields do not cross threads).
 */
export interface SmtpResult {
  id: number;
  error?: {
    message: string;
    code?: string;
    command?: string;
    responseCode?: number;
  };
}

function plainError(error: unknown): NonNullable<SmtpResult['error']> {
  const { message, code, command, responseCode } = (error ?? {}) as {
    message?: unknown;
    code?: unknown;
    command?: unknown;
    responseCode?: unknown;
  };
  return {
    message: typeof message === 'string' ? message : String(error),
    ...(typeof code === 'string' && { code }),
    ...(typeof command === 'string' && { command }),
    ...(typeof responseCode === 'number' && { responseCode }),
  };
}

const port = parentPort;
if (port) {
  const { options } = workerData as SmtpWorkerData;
  const transporter = nodemailer.createTransport(options);
  port.on('message', (job: SmtpJob | null) => {
    if (job === null) {
      transporter.close();
      port.close();
      return;
    }
    transporter.sendMail({ ...job.mail }).then(
      () => port.postMessage({ id: job.id } satisfies SmtpResult),
      (error: unknown) =>
        port.postMessage({
          id: job.id,
          error: plainError(error),
        } satisfies SmtpResult),
    );
  });
}
