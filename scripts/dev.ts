/**
 * `npm run dev`: Parcel's dev server with hot reload on http://localhost:$PORT
 * (default 1234), and the local sign-up API on port 1235, to which
 * `.proxyrc.json` forwards `/2/…`. For `npm start`'s production build, see
 * server/start.ts.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { buildServer } from '../server/app';
import { serverOptionsFrom } from '../server/environment';
import { pageConfigEnvironment } from '../common/config';

const API_PORT = 1235;
const api = await buildServer(
  serverOptionsFrom(
    // A developer's test sign-ups name real sites: the dev server checks
    // none unless MONITOR=on is set (ADR-0108).
    { MONITOR: 'off', ...process.env },
    join(import.meta.dirname, '../dist'),
  ),
);
await api.listen({ port: API_PORT, host: 'localhost' });

const parcel = spawn(
  'parcel',
  ['serve', 'index.html', '--port', process.env.PORT ?? '1234'],
  {
    stdio: 'inherit',
    env: { ...process.env, ...pageConfigEnvironment(process.env) },
  },
);
parcel.on('exit', async (code) => {
  await api.close();
  process.exit(code ?? 0);
});
