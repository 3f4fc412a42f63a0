import { defineConfig } from 'vitest/config';

/**
 * The projects: `unit` (pure modules, machines and views in jsdom),
 * `server` and `server-postgres` (the sign-up service in Node, under abuse,
 * load and crashes on loopback: the same tests on the embedded database and
 * on a PostgreSQL server started for the run; `*.pglite.test.ts` on the
 * former only, `*.postgres.test.ts`, several instances on one server, on
 * the latter only) and
 * `browser` (the built page against the service: in Chromium, Firefox and
 * WebKit in tests/browser/engines.test.ts, journey.test.ts,
 * formHelp.test.ts, joiners.test.ts and consentAudit.test.ts, in Chromium
 * in the other files), then `browser-postgres` (the files that sign up
 * through the service, on PostgreSQL).
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'jsdom',
          include: [
            'tests/unit/**/*.test.{ts,tsx}',
            'tests/machines/**/*.test.{ts,tsx}',
          ],
          setupFiles: ['tests/unit/support/setupDom.ts'],
        },
      },
      {
        test: {
          name: 'server',
          environment: 'node',
          include: ['tests/server/**/*.test.ts'],
          // Several instances on one database need a PostgreSQL server.
          exclude: ['tests/server/**/*.postgres.test.ts'],
          globalSetup: [
            'tests/support/page/serverBundleSetup.ts',
            'tests/support/page/pgliteSetup.ts',
          ],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'server-postgres',
          environment: 'node',
          include: ['tests/server/**/*.test.ts'],
          // The embedded data directory's own tests.
          exclude: ['tests/server/**/*.pglite.test.ts'],
          globalSetup: [
            'tests/support/page/serverBundleSetup.ts',
            'tests/support/page/postgresSetup.ts',
          ],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'browser',
          environment: 'node',
          include: ['tests/browser/**/*.test.ts'],
          globalSetup: [
            'tests/support/page/buildPage.ts',
            'tests/support/page/pgliteSetup.ts',
          ],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One browser at a time (D86): some tests time the page against
          // its own clock, which a second browser beside it would slow.
          fileParallelism: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          // The browser tests that sign up through the service, again on a
          // PostgreSQL server: after the others, one browser at a time.
          name: 'browser-postgres',
          environment: 'node',
          include: [
            'tests/browser/journey.test.ts',
            'tests/browser/signup.test.ts',
          ],
          globalSetup: [
            'tests/support/page/buildPage.ts',
            'tests/support/page/postgresSetup.ts',
          ],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
