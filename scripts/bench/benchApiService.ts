/**
 * The service `npm run bench:api` measures, in a process of its own
 * (scripts/bench/benchApi.ts bundles it into `dist-server/bench-api.mjs`): the
 * service `npm start` builds from the environment (server/environment.ts,
 * server/app.ts), logging as it does, with mail as the one argument says:
 *
 * - `send`: as the environment says (the bench sets SMTP_URL to its sink);
 * - `queue`: each sign-up's confirmation queued by its statement, nothing
 *   sending it (the service without mail options).
 *
 * Listens on `HOST`:`PORT`; SIGTERM closes it and ends the process.
 *
 * Usage: `node dist-server/bench-api.mjs send|queue`
 */
import { join } from 'node:path';
import { buildServer } from '../../server/app';
import { positiveInteger, serverOptionsFrom } from '../../server/environment';

/** How the service under measure treats mail (see the module comment). */
export type BenchMail = 'send' | 'queue';

const mode = process.argv[2];
if (mode !== 'send' && mode !== 'queue') {
  throw new Error(`Usage: bench-api.mjs send|queue; got "${mode}"`);
}
const { mail, ...options } = serverOptionsFrom(
  process.env,
  join(import.meta.dirname, '../dist'),
);
const app = await buildServer({
  ...options,
  ...(mode === 'send' && { mail }),
  logger: true,
});
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
await app.listen({
  port: positiveInteger(process.env, 'PORT', 1234),
  host: process.env.HOST?.trim() || 'localhost',
});
