// @ts-check
/**
 * Mutation testing of the page's logic (`npm run mutation`, docs/mutation.md):
 * StrykerJS changes one expression at a time in the files below and runs the
 * unit, machine, model and server tests that cover it
 * (vitest.mutation.config.ts); a change no test notices is a survivor.
 * Views and scripts are left out.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate: [
    'contract/*.ts',
    'machines/*.ts',
    'common/validation.ts',
    'common/fieldLimits.ts',
    'common/asciiHost.ts',
    'common/domainName.ts',
    'common/signUpRules.ts',
    'common/campaign.ts',
    'common/emailAddress.ts',
    'src/signUp/signUpClient.ts',
    'src/platform/cookies.ts',
    'src/signUp/prefill.ts',
    'src/consent/trackingTag.ts',
    'src/platform/chunkLoader.ts',
    'src/consent/consentRecorder.ts',
    'server/signUp/signUpRules.ts',
    'server/http/formBody.ts',
    'server/monitor/check/addressRule.ts',
    'server/monitor/check/remoteText.ts',
  ],
  // Each mutant runs only the tests that reach it.
  coverageAnalysis: 'perTest',
  // A mutant reached only while a module loads (a constant, the machines'
  // definitions) would need every related test file per mutant.
  ignoreStatic: true,
  // Mutants and tests unchanged since the last run keep their result.
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  concurrency: 2,
  // The first, instrumented run of every test took over StrykerJS's default
  // 5 minutes on two cores beside other work.
  dryRunTimeoutMinutes: 15,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 98, low: 95, break: 95 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};

export default config;
