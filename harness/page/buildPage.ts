/**
 * Vitest global setup of the browser project: builds the page for each
 * configuration in {@link TEST_BUILDS} with the build of `npm run build`
 * (scripts/build.ts: Parcel, then the prerender into index.html) and the
 * tests' environment, so the tests drive what visitors get. The tagged
 * build keeps its source maps: the byte budgets (tests/browser/budgets.test.ts)
 * read them to tell our code from the libraries'.
 *
 * `npm test` builds every configuration before its first test step, beside
 * the type check and lint (scripts/test.ts, {@link testPageBuild}), and
 * names them in {@link TEST_PAGES_BUILT}: the setup then builds nothing
 * again, nor does a file that asks for an on-demand build.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { PROJECT_ROOT, TEST_BUILDS, type TestBuild } from './paths';

/**
 * The variable naming the builds of {@link TEST_BUILDS} that this run has
 * made, comma-separated (e.g. `tagged,untagged`): a second project's setup,
 * or a file's {@link buildTestPage}, skips them.
 */
export const TEST_PAGES_BUILT = 'VIGIL_TEST_PAGES_BUILT';

/**
 * The variable naming the builds the setup makes, comma-separated, when a
 * run needs fewer than every build that is not on demand
 * (`npm run test:quick`: its one browser file needs `tagged` alone).
 */
export const TEST_PAGES_NEEDED = 'VIGIL_TEST_PAGES_NEEDED';

/** @returns the builds {@link TEST_PAGES_BUILT} names */
function builtPages(): Set<string> {
  return new Set((process.env[TEST_PAGES_BUILT] ?? '').split(','));
}

/**
 * @returns the builds the setup makes: those {@link TEST_PAGES_NEEDED}
 *   names, else every build of {@link TEST_BUILDS} not on demand
 */
function neededPages(): TestBuild[] {
  const names = Object.keys(TEST_BUILDS) as TestBuild[];
  const needed = process.env[TEST_PAGES_NEEDED]?.split(',');
  return needed
    ? names.filter((name) => needed.includes(name))
    : names.filter((name) => !('onDemand' in TEST_BUILDS[name]));
}

export default function buildPage(): void {
  const built = builtPages();
  for (const name of neededPages()) {
    if (!built.has(name)) {
      buildTestPage(name);
      built.add(name);
    }
  }
  process.env[TEST_PAGES_BUILT] = [...built].filter(Boolean).join(',');
}

/**
 * The command that builds one configuration of {@link TEST_BUILDS} into
 * its directory (`npm test` runs each beside the type check and lint,
 * scripts/test.ts), to run from {@link PROJECT_ROOT}.
 *
 * @returns the program and its arguments, and the environment to add
 */
export function testPageBuild(name: TestBuild): {
  command: [string, ...string[]];
  env: NodeJS.ProcessEnv;
} {
  const { distDir, env } = TEST_BUILDS[name];
  return {
    command: [
      resolve(PROJECT_ROOT, 'node_modules/.bin/tsx'),
      'scripts/build.ts',
      '--dist-dir',
      distDir,
      ...(name === 'tagged' ? [] : ['--no-source-maps']),
      // One cache per configuration: builds never borrow another's env.
      '--cache-dir',
      resolve(PROJECT_ROOT, `.parcel-cache/test-${name}`),
    ],
    // Vitest sets NODE_ENV=test, which would build React's development copy.
    env: { ...env, NODE_ENV: 'production' },
  };
}

/**
 * Builds one configuration of {@link TEST_BUILDS} into its directory,
 * unless {@link TEST_PAGES_BUILT} names it. Its output goes to the terminal.
 *
 * @throws Error when the build fails
 */
export function buildTestPage(name: TestBuild): void {
  if (builtPages().has(name)) return;
  const {
    command: [file, ...args],
    env,
  } = testPageBuild(name);
  execFileSync(file, args, {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
}
