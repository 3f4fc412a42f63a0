/**
 * `npm run mail`: the mail a service without `SMTP_URL` wrote instead of
 * sending it (ADR-0100), for the person running it on their own machine:
 * the newest mail's recipient, subject and text, links included, so that
 * they can follow them. `npm run mail -- --all` prints every mail, oldest
 * first.
 *
 * It reads the files in `$DATA_DIR/mail` (default `./data/mail`), never the
 * database, so it runs beside the service (whose embedded database allows
 * one process). The service's housekeeping deletes them 7 days after they
 * were written, as it drops the outbox's copies (ADR-0089;
 * `deleteOldMailFiles` in ./channels/mailTransport.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mailDirFrom } from './settings';

const dir = mailDirFrom(process.env);
const files = existsSync(dir)
  ? readdirSync(dir)
      .filter((name) => name.endsWith('.txt'))
      .sort()
  : [];
if (files.length === 0) {
  console.log(
    `No mail in ${dir} yet. Sign up (or ask for a sign-in link) with the service running, then run this again.`,
  );
} else {
  const shown = process.argv.includes('--all') ? files : files.slice(-1);
  console.log(
    shown
      .map((name) => `${readFileSync(join(dir, name), 'utf8').trimEnd()}\n`)
      .join('\n----------------------------------------\n\n'),
  );
  console.log(
    `(${files.length} mail${files.length === 1 ? '' : 's'} in ${dir}; each is deleted 7 days after it was written)`,
  );
}
