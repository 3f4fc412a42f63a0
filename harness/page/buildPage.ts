/**
 * Vitest global setup of the browser project: builds the page for each
 * configuration in {@link TEST_BUILDS} with the build of `npm run build`
 * (scripts/build.ts: Parcel, then the prerender into index.html) and the
 * tests' environment, so the tests drive what visitors get. The tagged
 * build keeps its source maps: the byte budgets (tests/browser/budgets.test.ts)
 * read them to tell our code from the libraries'.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { PROJECT_ROOT, TEST_BUILDS, type TestBuild } from './paths';

/** Set once this run has built the pages: a second project skips it. */
const BUILT = 'VIGIL_TEST_PAGES_BUILT';

export default function buildPage(): void {
  if (process.env[BUILT]) return;
  for (const name of Object.keys(TEST_BUILDS) as TestBuild[]) {
    if (!('onDemand' in TEST_BUILDS[name])) buildTestPage(name);
  }
  process.env[BUILT] = '1';
}

/** Builds one configuration of {@link TEST_BUILDS} into its directory. */
export function buildTestPage(name: TestBuild): void {
  const { distDir, env } = TEST_BUILDS[name];
  execFileSync(
    resolve(PROJECT_ROOT, 'node_modules/.bin/tsx'),
    [
      'scripts/build.ts',
      '--dist-dir',
      distDir,
      ...(name === 'tagged' ? [] : ['--no-source-maps']),
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
