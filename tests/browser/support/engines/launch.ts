/**
 * Starts an engine with its traffic through the tests' proxy, and the
 * per-`describe` set-up of the shared browser tests: the proxy, the engine
 * and the local server, started before the block's tests, closed after.
 */
import { afterAll, beforeAll } from 'vitest';
import {
  startTestServer,
  type TestServer,
} from '../../../../harness/page/testServer';
import type { EngineBrowser } from './browser';
import type { Engine } from '../../../../harness/engines';
import { startNetworkEdge, type NetworkEdge } from './network';
import { launchPuppeteerEngine } from './puppeteerEngine';
import { launchWebKitEngine } from './webkitEngine';

/** @param proxyPort the tests' proxy on 127.0.0.1 (./network.ts) */
export function launchEngine(
  engine: Engine,
  proxyPort: number,
): Promise<EngineBrowser> {
  return engine === 'webkit'
    ? launchWebKitEngine(proxyPort)
    : launchPuppeteerEngine(engine, proxyPort);
}

export interface EngineSuite {
  engine: Engine;
  browser: EngineBrowser;
  network: NetworkEdge;
  /** The local server with the tagged build over HTTP on localhost. */
  server: TestServer;
}

/** One engine, its proxy and a local server for a `describe` block. */
export function useEngine(engine: Engine): EngineSuite {
  const suite = { engine } as EngineSuite;
  beforeAll(async () => {
    suite.network = await startNetworkEdge();
    [suite.browser, suite.server] = await Promise.all([
      launchEngine(engine, suite.network.port),
      startTestServer(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([suite.browser?.close(), suite.server?.close()]);
    await suite.network?.stop();
  });
  return suite;
}
