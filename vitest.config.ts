import { configDefaults, defineConfig } from 'vitest/config';
import SlowestFirst from './harness/run/slowestFirst.ts';

/**
 * The projects, and the command that runs each (docs/testing.md):
 *
 * - `npm test`: `unit` (pure modules, machines and views in jsdom),
 *   `server` and `server-postgres` (the sign-up service in Node, under
 *   abuse, load and crashes on loopback: on the embedded database and on a
 *   PostgreSQL server started for the run; `*.pglite.test.ts` on the former
 *   only, `*.postgres.test.ts`, several instances on one server, on the
 *   latter only; the tests that open no database on the former only), and
 *   `browser` (the built page against the service in Chromium).
 * - `npm run test:engines`: `sweeps`, the three sweeps of every state in
 *   Chromium; `engines`, the files written for every engine
 *   (`describe.each(enginesUnderTest())`) in Firefox and WebKit, the model's
 *   paths among them; then `browser-postgres` (the
 *   files that sign up through the service, again with the service on
 *   PostgreSQL, in Chromium: the service's database code is
 *   `server-postgres`'s in `npm test`).
 */

/**
 * The browser files that run in every engine: in Chromium with the rest of
 * `browser`, and in Firefox and WebKit in `engines`.
 */
const EVERY_ENGINE = [
  'tests/browser/modelPaths.test.ts',
  'tests/browser/engines.test.ts',
  'tests/browser/journey.test.ts',
  'tests/browser/formHelp.test.ts',
  'tests/browser/joiners.test.ts',
  'tests/browser/consentAudit.test.ts',
  'tests/browser/channelPages.test.ts',
];

/**
 * The three sweeps of every state of both machines, in Chromium: every
 * transition path of the model at browser level (in Firefox and WebKit too,
 * as one of {@link EVERY_ENGINE}), axe-core in the dark scheme, and the
 * atlas generator's check. The slowest files of all, they run in
 * `npm run test:engines`, which has the time, and not in `npm test`, which
 * judges the same paths at machine and UI level (ADR-0086).
 */
const STATE_SWEEPS = [
  'tests/browser/modelPaths.test.ts',
  'tests/browser/darkAudit.test.ts',
  'tests/browser/atlas.test.ts',
];

/**
 * Server tests that open no database and start no service: the rules, the
 * form parser, the configuration. They run once, in `server`, and are the
 * server tests of the mutation run (vitest.mutation.config.ts).
 */
export const NO_DATABASE = [
  'tests/server/consentRules.test.ts',
  'tests/server/formBody.test.ts',
  'tests/server/formBodyEdges.test.ts',
  'tests/server/signUpRules.test.ts',
  'tests/server/signUpRuleReasons.test.ts',
  'tests/server/signUpRulesLimits.test.ts',
  'tests/server/environment.test.ts',
  'tests/server/monitor/addressRule.test.ts',
  'tests/server/monitor/remoteText.test.ts',
  'tests/server/monitor/hostResolver.test.ts',
];

/**
 * Server tests that run once, in `server`, not again in `server-postgres`:
 * {@link NO_DATABASE}, and the fuzzing of the API's reading of a request
 * (10,000 bodies, judged on what the API answers; the sign-ups among them
 * reach the same accounts code that the other files judge on PostgreSQL),
 * and the check of one site (against local sites, with no database).
 */
const RUN_ONCE = [
  ...NO_DATABASE,
  'tests/server/apiFuzz.test.ts',
  // One site's check, and one POST, against local sites; the leased
  // workers' loop over a fake work: no database.
  'tests/server/monitor/siteCheck.test.ts',
  'tests/server/monitor/safePost.test.ts',
  'tests/server/leasedWorker.test.ts',
];

/**
 * The first global setup of every project: the run's own temporary
 * directory, removed whole at its end (harness/run/runTempDir.ts).
 */
const RUN_TEMP_DIR = 'harness/run/runTempDir.ts';

/**
 * What the server projects share. Limits for a hang, not timings: the
 * service's processes, the fuzz and the data directory's lock take 30 s or
 * more each on an idle machine, and more than 60 s on a loaded one.
 */
const SERVER = {
  environment: 'node',
  testTimeout: 180_000,
  hookTimeout: 180_000,
} as const;

/**
 * The server projects' global setups: the service's bundle, which the
 * process tests run, and the run's database engine.
 */
const SERVER_SETUP = {
  pglite: [
    RUN_TEMP_DIR,
    'tests/server/support/serverBundleSetup.ts',
    'harness/page/pgliteSetup.ts',
  ],
  postgres: [
    RUN_TEMP_DIR,
    'tests/server/support/serverBundleSetup.ts',
    'harness/page/postgresSetup.ts',
  ],
};

/**
 * How long SMTP is down at least in tests/server/mailProcess.test.ts, in
 * ms (it comes back only after the last sign-up): the 30 s in
 * `npm run test:engines`, which CI runs before anything lands; 3 s in
 * `npm test`, where the same scenario (sign-ups acknowledged while SMTP is
 * down, a SIGKILL, a restart) still meets a closed port on every mail's
 * first attempt and waits for the production backoff's retries, without
 * 25 s of waiting per engine.
 */
const SMTP_OUTAGE = {
  full: { smtpOutageMs: 30_000 },
  short: { smtpOutageMs: 3_000 },
} as const;

/** The outage's scenario at its full length (`npm run test:engines`). */
const MAIL_OUTAGE = {
  ...SERVER,
  include: ['tests/server/mailProcess.test.ts'],
  provide: SMTP_OUTAGE.full,
  // Beside `browser-postgres`, last: the outage mostly waits.
  maxWorkers: 2,
  sequence: { groupOrder: 3 },
};

/**
 * Which engine a project's scratch databases are on
 * (harness/page/scratchDatabase.ts): a global setup's variables reach
 * every worker of the run, so the PostgreSQL server's URL alone cannot say
 * it when a PostgreSQL project runs beside an embedded one.
 */
const ON_PGLITE = { env: { TEST_DATABASE_ENGINE: 'pglite' } } as const;
const ON_POSTGRES = { env: { TEST_DATABASE_ENGINE: 'postgres' } } as const;

const BROWSER = {
  environment: 'node',
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // Two files at a time (ADR-0086): no test races the wall clock, and a browser
  // test mostly waits on its page. Three were no faster on two cores
  // (`browser` in a clean clone: 486 s at three, 504 s at two) and loaded
  // the machine more.
  fileParallelism: true,
  maxWorkers: 2,
  // How long `expect.poll` waits for what a page does: a limit for a hang,
  // not a timing. vitest's 1 s default failed a wait for the error report
  // (the reporting chunk fetched, parsed and sent) on a loaded machine.
  expect: { poll: { timeout: 15_000 } },
} as const;

/** The browser projects whose service keeps its accounts in PGlite. */
const BROWSER_ON_PGLITE = {
  ...BROWSER,
  ...ON_PGLITE,
  globalSetup: [
    RUN_TEMP_DIR,
    'harness/page/buildPage.ts',
    'harness/page/pgliteSetup.ts',
  ],
};

export default defineConfig({
  test: {
    // Project by project, the slowest files first
    // (harness/run/slowestFirst.ts).
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'node',
          include: [
            'tests/unit/**/*.test.{ts,tsx}',
            'tests/machines/**/*.test.{ts,tsx}',
          ],
          setupFiles: ['tests/unit/support/setupDom.ts'],
          globalSetup: [RUN_TEMP_DIR],
          // The files share each worker's modules (React, xstate, yup,
          // tr46, jsdom's window) instead of importing them again per file:
          // measured, this halves the project's time (docs/testing.md).
          // Nothing here depends on a module's state being fresh: each test
          // renders, mocks and cleans up what it uses.
          isolate: false,
          // A limit for a test that hangs, not a timing: a test that
          // spawns Node or renders every model path can take more than
          // vitest's default 5 s on a loaded machine.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          ...SERVER,
          ...ON_PGLITE,
          name: 'server',
          include: ['tests/server/**/*.test.ts'],
          // Several instances on one database need a PostgreSQL server.
          exclude: ['tests/server/**/*.postgres.test.ts'],
          globalSetup: SERVER_SETUP.pglite,
          provide: SMTP_OUTAGE.short,
          // The files share their worker's modules, as `unit`'s do: each
          // starts and closes its own services and databases. Measured,
          // the two server projects took 114 s against 148 s.
          isolate: false,
        },
      },
      {
        test: {
          ...SERVER,
          ...ON_POSTGRES,
          name: 'server-postgres',
          include: ['tests/server/**/*.test.ts'],
          // The embedded data directory's own tests, and those that run
          // once (in `server`).
          exclude: ['tests/server/**/*.pglite.test.ts', ...RUN_ONCE],
          globalSetup: SERVER_SETUP.postgres,
          provide: SMTP_OUTAGE.short,
          isolate: false,
        },
      },
      {
        test: {
          ...BROWSER_ON_PGLITE,
          name: 'browser',
          include: ['tests/browser/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...STATE_SWEEPS],
          provide: { engines: ['chromium'] },
          sequence: { groupOrder: 0 },
          // The files share their worker's modules (playwright-core,
          // puppeteer-core, mockttp, Fastify, PGlite): each starts and
          // closes its own browser, proxy and services. Measured, the step
          // took 151 s against 173 s (docs/testing.md). `test:engines`
          // keeps a fresh worker per file: its WebKit and Firefox drivers
          // hold more state, and it has no time target.
          isolate: false,
        },
      },
      {
        test: {
          // `npm run test:engines`: the browser tests that sign up through
          // the service, again on a PostgreSQL server, in Chromium.
          ...BROWSER,
          ...ON_POSTGRES,
          name: 'browser-postgres',
          include: [
            'tests/browser/journey.test.ts',
            'tests/browser/signup.test.ts',
            'tests/browser/mailJourney.test.ts',
          ],
          provide: { engines: ['chromium'] },
          globalSetup: [
            RUN_TEMP_DIR,
            'harness/page/buildPage.ts',
            'harness/page/postgresSetup.ts',
          ],
          sequence: { groupOrder: 3 },
        },
      },
      {
        test: {
          // `npm run test:engines`: the sweeps of every state, in Chromium.
          ...BROWSER_ON_PGLITE,
          name: 'sweeps',
          include: STATE_SWEEPS,
          provide: { engines: ['chromium'] },
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          // `npm run test:engines`: the files written for every engine, in
          // Firefox and WebKit.
          ...BROWSER_ON_PGLITE,
          name: 'engines',
          include: EVERY_ENGINE,
          provide: { engines: ['firefox', 'webkit'] },
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          // `npm run test:engines`: the mail's outage at its full length,
          // on each engine.
          ...MAIL_OUTAGE,
          ...ON_PGLITE,
          name: 'mail-outage',
          globalSetup: SERVER_SETUP.pglite,
        },
      },
      {
        test: {
          ...MAIL_OUTAGE,
          ...ON_POSTGRES,
          name: 'mail-outage-postgres',
          globalSetup: SERVER_SETUP.postgres,
        },
      },
    ],
  },
});
