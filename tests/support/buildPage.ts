/**
 * Vitest global setup of the browser project: builds the page once with
 * Parcel into `dist-test/` (the same build as `npm start`, apart from the
 * folder), so the tests drive exactly what visitors get.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

export const TEST_DIST_DIR = resolve(import.meta.dirname, '../../dist-test');

export default function buildPage(): void {
  execFileSync(
    resolve(import.meta.dirname, '../../node_modules/.bin/parcel'),
    [
      'build',
      'index.html',
      '--dist-dir',
      TEST_DIST_DIR,
      '--public-url',
      '/',
      '--no-source-maps',
    ],
    {
      cwd: resolve(import.meta.dirname, '../..'),
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
}
