/**
 * `npm run dev`: Parcel's dev server with hot reload on http://localhost:$PORT
 * (default 1234), and the local sign-up API on port 1235, to which
 * `.proxyrc.json` forwards `/2/…`. For `npm start`'s production build, see
 * server/start.ts.
 */
import { spawn } from 'node:child_process';
import { readConfig } from '../src/config';
import { buildServer } from '../server/app';

const API_PORT = 1235;
const config = readConfig(process.env);
const api = await buildServer({
  distDir: new URL('../dist', import.meta.url).pathname,
  productName: config.productName,
  rateLimit: Number(process.env.SIGNUP_RATE_LIMIT ?? 5),
  recaptchaSecret: process.env.RECAPTCHA_SECRET?.trim() || undefined,
  trackingTagUrl: config.trackingTagUrl,
  apiOrigin: config.apiOrigin,
  sentryDsn: config.sentryDsn,
});
await api.listen({ port: API_PORT, host: 'localhost' });

const parcel = spawn(
  'parcel',
  ['serve', 'index.html', '--port', process.env.PORT ?? '1234'],
  { stdio: 'inherit' },
);
parcel.on('exit', async (code) => {
  await api.close();
  process.exit(code ?? 0);
});
