/**
 * Vitest global setup of the browser project: builds the page with Parcel
 * for each configuration in {@link TEST_BUILDS} (the build of `npm start`
 * with the tests' environment), so the tests drive what visitors get.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { PROJECT_ROOT, TEST_BUILDS } from './paths';

export default function buildPage(): void {
  for (const [name, { distDir, env }] of Object.entries(TEST_BUILDS)) {
    execFileSync(
      resolve(PROJECT_ROOT, 'node_modules/.bin/parcel'),
      [
        'build',
        'index.html',
        '--dist-dir',
        distDir,
        '--public-url',
        '/',
        '--no-source-maps',
        // One cache per configuration: builds never borrow another's env.
        '--cache-dir',
        resolve(PROJECT_ROOT, `.parcel-cache/test-${name}`),
      ],
      {
        cwd: PROJECT_ROOT,
        stdio: 'inherit',
        // Vitest sets NODE_ENV=test, which would build React's development copy.
        env: { ...process.env, ...env, NODE_ENV: 'production' },
      },
    );
  }
}
