import { defineConfig } from 'vitest/config';

/**
 * Three projects: `unit` (pure modules, machines and views in jsdom),
 * `server` (the local server and its API in Node, under abuse and load on
 * loopback) and `browser` (the built page against the local server: in
 * Chromium, Firefox and WebKit in tests/browser/engines.test.ts, in Chromium
 * in the other files).
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
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'browser',
          environment: 'node',
          include: ['tests/browser/**/*.test.ts'],
          globalSetup: ['scripts/page/buildPage.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One browser at a time: this machine has two cores.
          fileParallelism: false,
        },
      },
    ],
  },
});
