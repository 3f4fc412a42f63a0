/**
 * Run by `npm run mutation` after `stryker run`: the machines' own target.
 * StrykerJS prints the score by folder and file and every survivor (its
 * clear-text reporter) and fails the run below 95 % overall (its
 * `thresholds.break`); this fails it when `machines/` is below 98 %
 * (docs/mutation.md). `tsx scripts/mutationScore.ts [report]` checks an
 * existing report (default `reports/mutation/mutation.json`).
 */
import { readFileSync } from 'node:fs';
import { calculateMetrics } from 'mutation-testing-metrics';
import type {
  FileResult,
  MutationTestResult,
} from 'mutation-testing-report-schema';

/** The lowest mutation score `machines/` may have, in % (docs/mutation.md). */
export const MACHINES_TARGET = 98;

/**
 * StrykerJS's own score (mutation-testing-metrics: detected ÷ valid, in %;
 * ignored and invalid mutants do not count) of the report's files under
 * `machines/`; NaN when it holds none.
 */
export function machinesScore(report: MutationTestResult): number {
  const files: Record<string, FileResult> = Object.fromEntries(
    Object.entries(report.files).filter(([path]) =>
      path.startsWith('machines/'),
    ),
  );
  return calculateMetrics(files).metrics.mutationScore;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = process.argv[2] ?? 'reports/mutation/mutation.json';
  const report = JSON.parse(readFileSync(path, 'utf8')) as MutationTestResult;
  const score = machinesScore(report);
  console.log(`machines/: ${score.toFixed(1)} % (target ${MACHINES_TARGET} %)`);
  // NaN (no machine mutated) fails too.
  if (!(score >= MACHINES_TARGET)) process.exitCode = 1;
}
