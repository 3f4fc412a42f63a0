/**
 * The machines' mutation target that `npm run mutation` adds to StrykerJS's
 * own (scripts/mutationScore.ts; docs/mutation.md: 98 % on machines/),
 * judged on reports in StrykerJS's schema whose scores are worked out by
 * hand: detected (killed or timed out) ÷ valid, ignored mutants aside.
 */
import { describe, expect, it } from 'vitest';
import type {
  MutantResult,
  MutantStatus,
  MutationTestResult,
} from 'mutation-testing-report-schema';
import { MACHINES_TARGET, machinesScore } from '../../scripts/mutationScore';

/** A report whose files hold mutants of the given statuses, in order. */
function reportOf(files: Record<string, MutantStatus[]>): MutationTestResult {
  const mutantsOf = (statuses: MutantStatus[]): MutantResult[] =>
    statuses.map((status, i) => ({
      id: String(i),
      mutatorName: 'ConditionalExpression',
      replacement: 'true',
      location: {
        start: { line: i + 1, column: 1 },
        end: { line: i + 1, column: 5 },
      },
      status,
    }));
  return {
    schemaVersion: '2',
    thresholds: { high: 98, low: 95 },
    files: Object.fromEntries(
      Object.entries(files).map(([path, statuses]) => [
        path,
        { language: 'typescript', source: '', mutants: mutantsOf(statuses) },
      ]),
    ),
  };
}

const killed = (n: number): MutantStatus[] =>
  Array<MutantStatus>(n).fill('Killed');

describe('the machines’ mutation score', () => {
  it('is 98 % at the target: 49 of 50 detected, an ignored mutant aside', () => {
    const score = machinesScore(
      reportOf({
        'machines/signUpMachine.ts': [...killed(48), 'Timeout', 'Survived'],
        'machines/consentMachine.ts': ['Ignored'],
      }),
    );
    expect(score).toBe(98);
    expect(score >= MACHINES_TARGET).toBe(true);
  });

  it('counts only machines/: other folders neither raise nor lower it', () => {
    expect(
      machinesScore(
        reportOf({
          'machines/consentMachine.ts': [
            ...killed(48),
            'Survived',
            'NoCoverage',
          ],
          'common/domainName.ts': killed(50),
          'src/machinesHelper.ts': killed(10),
        }),
      ),
    ).toBe(96);
  });

  it('is no score at all when no machine was mutated', () => {
    expect(
      machinesScore(reportOf({ 'common/validation.ts': killed(3) })),
    ).toBeNaN();
  });
});
