/**
 * The order in which vitest starts the test files: project by project, and
 * within a project the slowest first (the longest-processing-time rule),
 * so that no long file starts last and holds a worker while the other
 * idles.
 *
 * vitest's own sequencer orders a project's files by the durations of its
 * result cache, or by file size when there is none: in a fresh clone, as
 * CI runs, a 20 s file could start last. This one reads the measured
 * durations below instead: the same order in every clone, so a failure
 * that depends on order reproduces. A file not listed counts as quick, and
 * among those the larger file goes first, as in vitest's own.
 *
 * Projects stay one after another, as in vitest's own: a worker that
 * shares its modules between files (`isolate: false`) is kept only while
 * the next file in the queue is of its project. Measured, interleaving
 * `unit` with `server` made a worker of each file, and the run took 200 s
 * against 183 s for the two one after the other.
 *
 * The figures are seconds of one file's tests as `CI=true npm test`
 * reported them (its JSON reporter); they need only be right in their
 * order. Measure again when a file grows past its neighbours
 * (docs/testing.md, "Order of the files").
 */
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds per file (path from the project root), slowest first. */
export const MEASURED_SECONDS: Readonly<Record<string, number>> = {
  'tests/browser/signup.test.ts': 35,
  'tests/browser/consent.test.ts': 34,
  'tests/browser/appearance.test.ts': 25,
  'tests/browser/consentAudit.test.ts': 24,
  'tests/browser/engines.test.ts': 23,
  'tests/browser/faults.test.ts': 22,
  'tests/server/process.test.ts': 21,
  'tests/server/monitor/killed.test.ts': 19,
  'tests/server/mailProcess.test.ts': 15,
  'tests/browser/formHelp.test.ts': 13,
  'tests/browser/csp.test.ts': 12,
  'tests/browser/prerender.test.ts': 12,
  'tests/server/apiFuzz.test.ts': 11,
  'tests/browser/journey.test.ts': 11,
  'tests/server/rateLimitLoad.test.ts': 9,
  'tests/browser/sessionSafety.test.ts': 8,
  'tests/browser/capturedInput.test.ts': 8,
  'tests/server/dataDir.pglite.test.ts': 7,
  'tests/server/monitor/monitor.test.ts': 6,
  'tests/browser/monitorJourney.test.ts': 6,
};

/**
 * Sorts by `sequence.groupOrder` first (vitest runs the groups one after
 * another), then by project name, then by {@link MEASURED_SECONDS},
 * longest first, then by file size, largest first.
 */
export default class SlowestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const weight = new Map(
      files.map((spec) => {
        const path = relative(root, spec.moduleId);
        return [
          spec,
          [MEASURED_SECONDS[path] ?? 0, statSync(spec.moduleId).size],
        ];
      }),
    );
    return Promise.resolve(
      [...files].sort((a, b) => {
        const group =
          a.project.config.sequence.groupOrder -
          b.project.config.sequence.groupOrder;
        if (group !== 0) return group;
        if (a.project.name !== b.project.name) {
          return a.project.name < b.project.name ? -1 : 1;
        }
        const [secondsA = 0, sizeA = 0] = weight.get(a) ?? [];
        const [secondsB = 0, sizeB = 0] = weight.get(b) ?? [];
        return secondsB - secondsA || sizeB - sizeA;
      }),
    );
  }
}
