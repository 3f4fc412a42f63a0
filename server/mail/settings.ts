/**
 * Where mail is written without `SMTP_URL` ([D100](../../docs/decisions.md#D100)), read from the
 * environment as the service reads it, for `npm run mail`
 * (./mailCommand.ts) and the service's mail options
 * (server/environment.ts).
 */
import { resolve } from 'node:path';
import { DEFAULT_DATA_DIR, type ServerEnvironment } from '../db/settings';

/** Where mail goes without `SMTP_URL`: `mail` under the data directory. */
export const MAIL_DIR = 'mail';

/**
 * @returns the absolute directory mail is written to without `SMTP_URL`:
 *   `$DATA_DIR/mail` (default `./data/mail`)
 */
export function mailDirFrom(env: ServerEnvironment): string {
  return resolve(env.DATA_DIR?.trim() || DEFAULT_DATA_DIR, MAIL_DIR);
}
