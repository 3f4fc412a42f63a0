import { relative } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base, { NO_DATABASE } from './vitest.config.ts';

/**
 * The test projects StrykerJS runs against each mutant (stryker.config.mjs,
 * `npm run mutation`): `unit` (unit, machine and model tests in jsdom) and
 * `server` (the local API in Node), taken from vitest.config.ts so that a
 * test moved there is also moved here. Not `browser`: a build and a browser
 * per mutant would not fit a run of half an hour.
 */
const MUTATION_PROJECTS = new Set(['unit', 'server']);

/**
 * The server tests under mutation: those that open no database and start
 * no service (`NO_DATABASE` in vitest.config.ts: the rules, the form
 * parser, the configuration). Left out, by that list:
 *
 * - the tests that open a database or start the service in the test. They
 *   reach the mutated rules only through the routes, yet every mutant of a
 *   rule they reach ran them, each file with a scratch database and a
 *   service of its own (`apiFuzz` 37 s alone), and the run built the
 *   embedded database's template and the service's bundle for them. Run
 *   without them (issue 36), StrykerJS's report still scored `server/`
 *   100 %, and the whole higher than with them (docs/mutation.md);
 * - the rate limit under load, whose autocannon client fails in the worker
 *   threads StrykerJS runs tests in, and the tests that start the service
 *   as processes of their own, which run the code on disk, not StrykerJS's
 *   mutants.
 */
const SERVER_UNDER_MUTATION = NO_DATABASE;

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
                // The project's own exclusions too.
                exclude: [
                  ...configDefaults.exclude,
                  ...(project.test?.exclude ?? []),
                ],
                ...(nameOf(project) === 'server' && {
                  include: SERVER_UNDER_MUTATION,
                }),
                // Fresh modules per file, whatever vitest.config.ts says: a
                // module's state (the model's plan, made once per worker)
                // must not outlive the mutant it was made under. Tried,
                // `isolate: false` here made the run slower, not faster
                // (docs/mutation.md).
                isolate: true,
                // A test slower than vitest's 5 s beside other work is no
                // kill: StrykerJS's report of issue 36 counted 15 mutants
                // killed by "Test timed out in 5000ms" (the rules' property
                // tests), among them mutants no behaviour tells from the
                // code. The slowest test takes about 1 s alone; 20 s is a
                // limit for a hang: a mutant that hangs a test fails it
                // after 20 s, not at StrykerJS's own time-out (the dry
                // run's overhead plus 5 s: about 80 s a mutant) or at the
                // 60 s this limit was before.
                testTimeout: 20_000,
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
