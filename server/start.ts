/**
 * `npm start` (after the build) and `npm run serve`: the sign-up service on
 * http://$HOST:$PORT, configured by the environment variables of
 * docs/contract.md ("Configuration"). This file owns the process: its
 * signals and its exit codes.
 *
 * - A configuration that cannot work or would run unsafely (a real captcha
 *   key without its secret), a data directory another instance holds, a
 *   database that cannot be opened: a message on stderr, exit 1.
 * - A configuration that runs, but unsafely (Google's test captcha key,
 *   `TRUST_PROXY=true`, a public `PUBLIC_URL` without `SMTP_URL`): a
 *   warning on stderr at every start.
 * - The Node.js version it runs on, where mail goes (an SMTP server, or
 *   files `npm run mail` reads), and whether this instance checks sites
 *   (how often, how many at once): a line each on stdout at every start;
 *   a Node.js older than `engines` allows, a warning.
 * - SIGTERM or SIGINT: stop accepting, finish the requests in flight and
 *   the mails being sent, close the database, exit 0 (exit 1 if that takes longer than
 *   {@link SHUTDOWN_GRACE_MS}).
 */
import { join } from 'node:path';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { buildServer, type ServerOptions } from './app';
import { monitorNotice } from './monitor/index';
import {
  mailNotice,
  positiveInteger,
  runtimeNotice,
  serverOptionsFrom,
  startupWarnings,
} from './environment';

/** How long a shutdown may take: longer than a query may (10 s). */
const SHUTDOWN_GRACE_MS = 15_000;

let app: FastifyInstance;
let options: ServerOptions;
let port: number;
const host = process.env.HOST?.trim() || 'localhost';
try {
  port = positiveInteger(process.env, 'PORT', 1234);
  options = serverOptionsFrom(
    process.env,
    join(import.meta.dirname, '../dist'),
  );
  app = await buildServer({ ...options, logger: true });
} catch (error) {
  console.error(
    `The sign-up service did not start: ${(error as Error).message}`,
  );
  process.exit(1);
}

closeWithGrace(
  { delay: SHUTDOWN_GRACE_MS, logger: app.log },
  async ({ signal, err }) => {
    if (err) app.log.error(err, 'stopping after an unexpected error');
    else app.log.info(`${signal ?? 'exit'}: finishing requests in flight`);
    await app.close();
  },
);

await app.listen({ port, host });
console.log(`Sign-up page: http://${host}:${port}/signup`);
// Which Node.js runs the service, and a warning when it is too old.
const runtime = runtimeNotice(process.version);
console.log(runtime.notice);
if (runtime.warning) console.warn(`Warning: ${runtime.warning}`);
// Where mail goes, so that nobody believes a mail was sent that was not.
if (options.mail) console.log(mailNotice(options.mail));
// Whether this instance checks sites, how often and how many at once.
console.log(monitorNotice(options.monitor));
// A configuration that runs, but unsafely, says so at every start.
for (const warning of startupWarnings(options)) {
  console.warn(`Warning: ${warning}`);
}
