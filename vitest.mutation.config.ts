import { relative } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vitest.config';

/**
 * The test projects StrykerJS runs against each mutant (stryker.config.mjs,
 * `npm run mutation`): `unit` (unit, machine and model tests in jsdom) and
 * `server` (the local API in Node), taken from vitest.config.ts so that a
 * test moved there is also moved here. Not `browser`: a build and a browser
 * per mutant would not fit the run's 20 minutes.
 */
const MUTATION_PROJECTS = new Set(['unit', 'server']);

/**
 * Left out: the rate limit under load, whose autocannon client fails in the
 * worker threads StrykerJS runs tests in (it passes in `npm test`'s forks),
 * and which tests the rate-limit store, not a mutated file.
 */
const NOT_UNDER_MUTATION = ['**/rateLimitLoad.test.ts'];

/**
 * Quick files first: StrykerJS stops a mutant's run at its first failing
 * test, so a mutant that a machine test kills in milliseconds should not
 * wait for the React pages of the UI-level model test to render. The order
 * is the React tests (`.tsx`) last, then the last run's duration of each
 * file, shortest first (vitest's own order runs the longest first).
 */
class QuickFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const cost = (file: TestSpecification) => {
      const key = `${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`;
      const duration = this.ctx.cache.getFileTestResults(key)?.duration ?? 0;
      return [file.moduleId.endsWith('.tsx') ? 1 : 0, duration] as const;
    };
    return [...files].sort((a, b) => {
      const [tsxA, durationA] = cost(a);
      const [tsxB, durationB] = cost(b);
      return tsxA - tsxB || durationA - durationB;
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
    sequence: { sequencer: QuickFilesFirst },
    projects: (base.test?.projects ?? []).flatMap((project) =>
      typeof project === 'object' &&
      'test' in project &&
      MUTATION_PROJECTS.has(nameOf(project) ?? '')
        ? [
            {
              ...project,
              test: {
                ...project.test,
                exclude: [...configDefaults.exclude, ...NOT_UNDER_MUTATION],
              },
            },
          ]
        : [],
    ),
  },
});
