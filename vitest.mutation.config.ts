import { relative } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vitest.config';

/**
 * The test projects StrykerJS runs against each mutant (stryker.config.mjs,
 * `npm run mutation`): `unit` (unit, machine and model tests in jsdom) and
 * `server` (the local API in Node), taken from vitest.config.ts so that a
 * test moved there is also moved here. Not `browser`: a build and a browser
 * per mutant would not fit a run of half an hour.
 */
const MUTATION_PROJECTS = new Set(['unit', 'server']);

/**
 * Left out: the rate limit under load, whose autocannon client fails in the
 * worker threads StrykerJS runs tests in (it passes in `npm test`'s forks),
 * and which tests the rate-limit store, not a mutated file; and the tests
 * that start the service as processes of its own, which run the code on
 * disk, not StrykerJS's mutants.
 */
const NOT_UNDER_MUTATION = [
  '**/rateLimitLoad.test.ts',
  '**/process.test.ts',
  '**/*.pglite.test.ts',
];

/**
 * Left out too: the server tests that open a database or start the service
 * in the test (`scratchDatabase`, `apiServer`). They reach the mutated rules
 * and parsers only through the routes, and StrykerJS's report showed no
 * mutant that they kill and the rules' own tests (`tests/server`'s
 * `signUpRules*`, `formBody*`, and the unit tests) leave alive
 * (docs/mutation.md, "What it mutates, with which tests"); yet every mutant
 * of a rule they reach ran them, a scratch database and a service per file,
 * `apiFuzz` 37 s and `consentApi` 27 s alone.
 */
const SERVICE_TESTS = [
  'tests/server/accounts.test.ts',
  'tests/server/apiAbuse.test.ts',
  'tests/server/apiFuzz.test.ts',
  'tests/server/captcha.test.ts',
  'tests/server/consentApi.test.ts',
  'tests/server/crossOrigin.test.ts',
  'tests/server/housekeeping.test.ts',
  'tests/server/pageRoutes.test.ts',
  'tests/server/rateLimitStore.test.ts',
  'tests/server/securityHeaders.test.ts',
  'tests/server/signIn.test.ts',
  'tests/server/trustProxy.test.ts',
];

/**
 * The likely killer first: StrykerJS stops a mutant's run at its first
 * failing test, and runs the mutants of one file one after another. So the
 * file whose test failed last time runs first (it usually kills the next
 * mutant too), then the quicker files, and the React pages of the UI-level
 * model test (`.tsx`) last whatever happened: a mutant that a rule's table
 * kills in milliseconds need not wait for them to render.
 */
class LikelyKillerFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const cost = (file: TestSpecification) => {
      const key = `${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`;
      const last = this.ctx.cache.getFileTestResults(key);
      return [
        file.moduleId.endsWith('.tsx') ? 1 : 0,
        last?.failed ? 0 : 1,
        last?.duration ?? 0,
      ];
    };
    return [...files].sort((a, b) => {
      const [costA, costB] = [cost(a), cost(b)];
      const index = costA.findIndex((value, i) => value !== costB[i]);
      return index === -1 ? 0 : (costA[index] ?? 0) - (costB[index] ?? 0);
    });
  }
}

/** A project's name, which vitest.config.ts gives as a plain string. */
function nameOf(project: object): string | undefined {
  if (!('test' in project)) return undefined;
  const name = (project.test as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}

export default defineConfig({
  test: {
    sequence: { sequencer: LikelyKillerFirst },
    projects: (base.test?.projects ?? []).flatMap((project) =>
      typeof project === 'object' &&
      'test' in project &&
      MUTATION_PROJECTS.has(nameOf(project) ?? '')
        ? [
            {
              ...project,
              test: {
                ...project.test,
                // The project's own exclusions too (the server project
                // leaves the PostgreSQL-only tests to server-postgres).
                exclude: [
                  ...configDefaults.exclude,
                  ...(project.test?.exclude ?? []),
                  ...NOT_UNDER_MUTATION,
                  ...SERVICE_TESTS,
                ],
                // Fresh modules per file, whatever vitest.config.ts says: a
                // module's state (the model's plan, made once per worker)
                // must not outlive the mutant it was made under.
                isolate: true,
                // A test slower than vitest's 5 s beside other work is no
                // kill: StrykerJS's report of issue 36 counted 15 mutants
                // killed by "Test timed out in 5000ms" (the rules' property
                // tests), among them mutants no behaviour tells from the
                // code. A mutant that hangs a test still fails it, here or
                // at StrykerJS's own time-out.
                testTimeout: 60_000,
                // What is left opens no database and runs no bundle: the
                // embedded database's template and the service's build
                // (10 s per test runner beside other work) are not needed.
                globalSetup: [],
              },
            },
          ]
        : [],
    ),
  },
});
