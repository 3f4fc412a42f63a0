/**
 * Vitest global setup of the browser project: builds the page once with
 * Parcel into `dist-test/` (the same build as `npm start`, apart from the
 * folder), so the tests drive exactly what visitors get.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { PROJECT_ROOT, TEST_DIST_DIR } from './paths';

export default function buildPage(): void {
  execFileSync(
    resolve(PROJECT_ROOT, 'node_modules/.bin/parcel'),
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
      cwd: PROJECT_ROOT,
      stdio: 'inherit',
      // Vitest sets NODE_ENV=test, which would build React's development copy.
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
}
