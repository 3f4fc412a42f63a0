/**
 * The sign-up service with its site monitor on, for the browser tests of
 * `/`'s monitor section and the state atlas's pictures of it, kept on
 * loopback as the monitor's server tests are (tests/server/monitor/):
 *
 * - the monitor's resolver is the tests' table, which maps `site.test` to
 *   127.0.0.1 and no other name (no name is ever looked up in DNS);
 * - only 127.0.0.0/8 is allowed besides public addresses, and every
 *   connection a check is about to open passes the loopback tripwire
 *   first, which throws for anything off loopback and remembers it;
 * - the watched site is a switchable local site on 127.0.0.1;
 * - the clock is the test's, and the scheduler does not start: the caller
 *   moves the clock and runs the checks due on it, so nothing waits out
 *   an interval.
 */
import type { MonitorScheduler } from '../../server/monitor/scheduler';
import {
  startSwitchableSite,
  testClock,
  testMonitorOptions,
  type SwitchableSite,
  type TestClock,
} from '../monitor/monitorService';
import { loopbackTripwire, type Tripwire } from '../monitor/tripwire';
import { startTestServer, type TestServer } from './testServer';

export { TEST_INTERVAL_MS } from '../monitor/monitorService';

/** A service whose monitor the caller drives, and the site it watches. */
export interface MonitoredService {
  server: TestServer;
  /** The monitor's clock. */
  clock: TestClock;
  /** The local site the sign-ups name (`site.url(n)`). */
  site: SwitchableSite;
  /** Every connection the checks were about to open, and any refused. */
  tripwire: Tripwire;
  /**
   * Moves the monitor's clock forward, then runs every check due on it and
   * resolves once their results are written.
   *
   * @param ms how far to move the clock (0: run what is due now)
   * @returns how many checks ran
   */
  checksAfter(ms: number): Promise<number>;
  /** Closes the service, then the site. */
  close(): Promise<void>;
}

/**
 * Starts a {@link MonitoredService}: the tagged page's service
 * (harness/page/testServer.ts) with the monitor options of the
 * monitor's server tests, and a switchable site.
 *
 * @throws when the service or the site cannot start (the one that started
 *   is closed first)
 */
export async function startMonitoredService(): Promise<MonitoredService> {
  const clock = testClock();
  const tripwire = loopbackTripwire();
  const site = await startSwitchableSite();
  let server: TestServer;
  try {
    server = await startTestServer({
      monitor: testMonitorOptions(clock, tripwire),
    });
  } catch (error) {
    await site.close();
    throw error;
  }
  const scheduler: MonitorScheduler | undefined = server.monitor.scheduler;
  if (!scheduler) {
    await Promise.all([server.close(), site.close()]);
    throw new Error('the service was started without its scheduler');
  }
  return {
    server,
    clock,
    site,
    tripwire,
    async checksAfter(ms) {
      clock.advance(ms);
      return scheduler.runDue();
    },
    async close() {
      await server.close();
      await site.close();
    },
  };
}
