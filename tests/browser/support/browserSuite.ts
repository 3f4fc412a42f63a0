/**
 * One headless Chromium and one local server (the tagged build) for a test
 * file: started before its tests, closed after them.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './chromium';
import {
  startTestServer,
  type TestServer,
} from '../../../harness/page/testServer';

export function useChromiumAndServer(): {
  browser: Browser;
  server: TestServer;
} {
  const suite = {} as { browser: Browser; server: TestServer };
  beforeAll(async () => {
    [suite.browser, suite.server] = await Promise.all([
      launchChromium(),
      startTestServer(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([suite.browser?.close(), suite.server?.close()]);
  });
  return suite;
}
