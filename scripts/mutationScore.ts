/**
 * The mutation score by file group, read from the report StrykerJS writes
 * (`reports/mutation/mutation.json`, the mutation-testing-elements schema).
 * Run by `npm run mutation` after `stryker run`; `tsx
 * scripts/mutationScore.ts [report]` prints it again for an existing report.
 *
 * Prints a Markdown table (group, mutants, killed, timed out, survived, no
 * coverage, score in %) and every undetected mutant as `file:line mutator
 * (replacement)`. The score is StrykerJS's own (mutation-testing-metrics):
 * detected ÷ valid, where ignored and invalid mutants do not count.
 *
 * Exits 1 when a group falls below its target (docs/mutation.md): 98 % for
 * the machines, 95 % for the whole; StrykerJS's `thresholds.break` checks
 * the whole as well, this adds the machines.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { calculateMetrics, type Metrics } from 'mutation-testing-metrics';
import type {
  FileResult,
  MutationTestResult,
} from 'mutation-testing-report-schema';
import { PROJECT_ROOT } from '../tests/support/page/paths';

const DEFAULT_REPORT = resolve(PROJECT_ROOT, 'reports/mutation/mutation.json');

/** A group of mutated files, as the README and docs/mutation.md name them. */
interface Group {
  name: string;
  /** Whether a file of the report (path relative to the project) is in it. */
  holds: (path: string) => boolean;
  /** The lowest score (%) the group may have, if it has its own target. */
  target?: number;
}

export const GROUPS: readonly Group[] = [
  {
    name: 'machines/',
    holds: (path) => path.startsWith('machines/'),
    target: 98,
  },
  {
    name: 'rules (common/validation, domainName, signUpRules, campaign, emailAddress)',
    holds: (path) => path.startsWith('common/'),
  },
  {
    name: 'client (src/signUpClient)',
    holds: (path) => path === 'src/signUpClient.ts',
  },
  { name: 'cookies (src/cookies)', holds: (path) => path === 'src/cookies.ts' },
  { name: 'prefill (src/prefill)', holds: (path) => path === 'src/prefill.ts' },
  {
    name: 'tag loader (src/trackingTag)',
    holds: (path) => path === 'src/trackingTag.ts',
  },
  {
    name: 'chunk loader (src/chunkLoader)',
    holds: (path) => path === 'src/chunkLoader.ts',
  },
  {
    name: 'consent recorder (src/consentRecorder)',
    holds: (path) => path === 'src/consentRecorder.ts',
  },
  {
    name: 'server (signUpRules, formBody)',
    holds: (path) => path.startsWith('server/'),
  },
];

const OVERALL_TARGET = 95;

/** One row of the table: a group's name and StrykerJS's metrics for it. */
export interface ScoreRow {
  name: string;
  metrics: Metrics;
  target?: number;
}

/**
 * The report's files, grouped; files no group holds are an error (a file
 * added to `mutate` must be named here too).
 *
 * @throws Error naming the files no group holds.
 */
export function scoreByGroup(report: MutationTestResult): ScoreRow[] {
  const paths = Object.keys(report.files);
  const loose = paths.filter((path) => !GROUPS.some((g) => g.holds(path)));
  if (loose.length > 0) {
    throw new Error(
      `No group in scripts/mutationScore.ts holds ${loose.join(', ')}`,
    );
  }
  const filesOf = (holds: (path: string) => boolean) =>
    Object.fromEntries(
      Object.entries(report.files).filter(([path]) => holds(path)),
    ) as Record<string, FileResult>;
  return [
    ...GROUPS.map((group) => ({
      name: group.name,
      metrics: calculateMetrics(filesOf(group.holds)).metrics,
      target: group.target,
    })),
    {
      name: '**overall**',
      metrics: calculateMetrics(report.files).metrics,
      target: OVERALL_TARGET,
    },
  ];
}

/** A score as the README shows it: one decimal, or "–" with no mutant. */
function percent(metrics: Metrics): string {
  return metrics.totalValid === 0
    ? '–'
    : `${metrics.mutationScore.toFixed(1)} %`;
}

/** The rows as a Markdown table. */
export function scoreTable(rows: readonly ScoreRow[]): string {
  const lines = [
    '| group | mutants | killed | timed out | survived | no coverage | score |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ({ name, metrics: m }) =>
        `| ${name} | ${m.totalValid} | ${m.killed} | ${m.timeout} | ${m.survived} | ${m.noCoverage} | ${percent(m)} |`,
    ),
  ];
  return lines.join('\n');
}

/** Every mutant no test detected, as `file:line mutator (replacement)`. */
export function undetected(report: MutationTestResult): string[] {
  return Object.entries(report.files).flatMap(([path, file]) =>
    file.mutants
      .filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')
      .map(
        (m) =>
          `${path}:${m.location.start.line} ${m.mutatorName} (${JSON.stringify(m.replacement ?? '')}) ${m.status}`,
      ),
  );
}

/** The groups below their target, as sentences; empty when all meet it. */
export function shortfalls(rows: readonly ScoreRow[]): string[] {
  return rows
    .filter(
      (row) =>
        row.target !== undefined &&
        row.metrics.totalValid > 0 &&
        row.metrics.mutationScore < row.target,
    )
    .map(
      (row) =>
        `${row.name}: ${percent(row.metrics)}, below its target of ${row.target} %`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = process.argv[2] ?? DEFAULT_REPORT;
  const report = JSON.parse(readFileSync(path, 'utf8')) as MutationTestResult;
  const rows = scoreByGroup(report);
  console.log(scoreTable(rows));
  const missed = undetected(report);
  console.log(
    missed.length === 0
      ? '\nNo mutant undetected.'
      : `\nUndetected (${missed.length}):\n${missed.join('\n')}`,
  );
  const below = shortfalls(rows);
  if (below.length > 0) {
    console.error(`\n${below.join('\n')}`);
    process.exitCode = 1;
  }
}
