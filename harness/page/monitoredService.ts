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
 *   an interval;
 * - the service's mail goes to an SMTP server of its own on loopback
 *   (harness/mail/smtpSink.ts): a site is checked every interval only once
 *   its owner has confirmed the address (ADR-0120), which the caller does in
 *   a browser with the magic link, as the owner would.
 */
import type { ParsedMail } from 'mailparser';
import type { MonitorScheduler } from '../../server/monitor/scheduler';
import {
  startSwitchableSite,
  testClock,
  testMonitorOptions,
  type SwitchableSite,
  type TestClock,
} from '../monitor/monitorService';
import { loopbackTripwire, type Tripwire } from '../monitor/tripwire';
import { startSmtpSink } from '../mail/smtpSink';
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
  /**
   * The confirmation link mailed to an address, for a browser to open and
   * press, as the owner would (ADR-0098).
   *
   * @param email the address signed up with
   * @returns the link (`/link?token=…` on the service's origin)
   * @throws when the mail holds no link; waits until the mail arrives (the
   *   test's timeout is the limit)
   */
  confirmationLink(email: string): Promise<URL>;
  /** Closes the service, then the site and the SMTP server. */
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
  const sink = await startSmtpSink();
  let server: TestServer;
  try {
    server = await startTestServer({
      monitor: testMonitorOptions(clock, tripwire),
      smtpUrl: sink.url,
    });
  } catch (error) {
    await Promise.all([site.close(), sink.stop()]);
    throw error;
  }
  const scheduler: MonitorScheduler | undefined = server.monitor.scheduler;
  if (!scheduler) {
    await Promise.all([server.close(), site.close(), sink.stop()]);
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
    async confirmationLink(email) {
      const address = email.toLowerCase();
      const isTo = (mail: ParsedMail) =>
        [mail.to ?? []]
          .flat()
          .some((to) =>
            to.value.some((one) => one.address?.toLowerCase() === address),
          );
      // The sign-up queued the mail; its sender sends it within moments.
      let mail = sink.messages.find(isTo);
      for (let count = sink.messages.length + 1; !mail; count += 1) {
        await sink.waitForMessages(count);
        mail = sink.messages.find(isTo);
      }
      const link = /https?:\/\/\S+/.exec(mail.text ?? '')?.[0];
      if (!link) throw new Error(`the mail to ${email} holds no link`);
      return new URL(link);
    },
    async close() {
      await server.close();
      await Promise.all([site.close(), sink.stop()]);
    },
  };
}
