/**
 * `npm start`: serves `dist/` and the local API on http://localhost:$PORT,
 * configured by the environment variables of CONTRACT.md.
 */
import { readConfig } from '../src/config';
import { buildServer } from './app';

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${name} must be a positive integer; got "${raw}"`);
  }
  return value;
}

const config = readConfig(process.env);
const port = positiveInteger('PORT', 1234);
const app = await buildServer({
  distDir: new URL('../dist', import.meta.url).pathname,
  productName: config.productName,
  rateLimit: positiveInteger('SIGNUP_RATE_LIMIT', 5),
  recaptchaSecret: process.env.RECAPTCHA_SECRET?.trim() || undefined,
  trackingTagUrl: config.trackingTagUrl,
  apiOrigin: config.apiOrigin,
  sentryDsn: config.sentryDsn,
  logger: true,
});
await app.listen({ port, host: 'localhost' });
console.log(`Sign-up page: http://localhost:${port}/signup`);
