/**
 * How the outbox sends mail: the service's mail options, and where mail
 * is written without `SMTP_URL` (ADR-0100), read from the environment as the
 * service reads it, for `npm run mail` (./mailCommand.ts) and the
 * service's mail options (server/environment.ts).
 */
import { resolve } from 'node:path';
import { DEFAULT_DATA_DIR, type ServerEnvironment } from '../db/settings';
import type { MailTransportSettings } from './channels/mailTransport';

/** Where mail goes without `SMTP_URL`: `mail` under the data directory. */
export const MAIL_DIR = 'mail';

/**
 * @returns the absolute directory mail is written to without `SMTP_URL`:
 *   `$DATA_DIR/mail` (default `./data/mail`)
 */
export function mailDirFrom(env: ServerEnvironment): string {
  return resolve(env.DATA_DIR?.trim() || DEFAULT_DATA_DIR, MAIL_DIR);
}

/**
 * How the service sends mail (`ServerOptions.mail`): the outbox of
 * notifications delivers with these.
 */
export interface MailOptions {
  /** `PUBLIC_URL`: every link in a mail is built on it, never on `Host`. */
  publicUrl: string;
  /** `MAIL_FROM`: a bare address or one with a display name. */
  from: string;
  transport: MailTransportSettings;
  /** How often other instances' deliveries and retries are looked for (ms; default 5 s). */
  pollIntervalMs?: number;
  /** Backoff of retries (ms): the first delay and the longest (defaults 1 s and 5 min). */
  retry?: Partial<{ firstDelayMs: number; maxDelayMs: number }>;
  /** Start delivering when the service is ready (default true). */
  autoStart?: boolean;
}
