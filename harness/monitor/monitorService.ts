/**
 * A sign-up service that checks sites, for the monitor's tests: its clock
 * is the test's, its resolver maps `site.test` to 127.0.0.1 (never DNS),
 * only loopback is allowed besides public addresses, and every connection
 * passes the loopback tripwire first. Beside it, a site on 127.0.0.1 whose
 * answer the test switches (up, failing, hanging), one path per account.
 */
import type { ServerResponse } from 'node:http';
import type { MonitorOptions } from '../../server/monitor/index';
import { parseAllowedNetworks } from '../../server/monitor/check/addressRule';
import { loopbackTripwire, testResolver, type Tripwire } from './tripwire';
import { startLocalSite, type LocalSite } from './localSites';

/**
 * The test's clock: the host's time plus an offset the test moves forward,
 * so that rows the database stamps with its own `now()` (a sign-up's first
 * due time) are already due on it, and `advance` jumps over an interval
 * without waiting for it.
 */
export interface TestClock {
  now(): Date;
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void;
}

/** @returns a new {@link TestClock} */
export function testClock(): TestClock {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
  };
}

/** The interval the tests use: the product's default. */
export const TEST_INTERVAL_MS = 60_000;

/**
 * The monitor options of a test service.
 *
 * @param clock the test's clock
 * @param tripwire the loopback tripwire every connection passes
 * @param overrides anything else (e.g. `autoStart: true`, `pollMs`)
 */
export function testMonitorOptions(
  clock: TestClock,
  tripwire: Tripwire = loopbackTripwire(),
  overrides: Partial<MonitorOptions> = {},
): MonitorOptions {
  return {
    intervalMs: TEST_INTERVAL_MS,
    concurrency: 50,
    allowedNetworks: parseAllowedNetworks('127.0.0.0/8'),
    resolve: testResolver({ 'site.test': ['127.0.0.1'] }).resolve,
    beforeConnect: tripwire.beforeConnect,
    // Short time boxes: a hanging site is found out without waiting 15 s.
    timeouts: { connectMs: 1_000, headersMs: 2_000, totalMs: 3_000 },
    clock: clock.now,
    autoStart: false,
    pollMs: 50,
    ...overrides,
  };
}

/** How a switchable site answers. */
export type Behaviour = 'up' | 'fail' | 'hang';

/** A site on 127.0.0.1 with one path per watched site (`/site?n=…`). */
export interface SwitchableSite {
  site: LocalSite;
  /** The URL of site `n`, under `site.test`. */
  url(n: number | string): string;
  /** Sets how site `n` answers from now on (default up). */
  set(n: number | string, behaviour: Behaviour): void;
  /** The requests site `n` received so far. */
  hits(n: number | string): number;
  /** Ends the hanging answers, then closes the server. */
  close(): Promise<void>;
}

/** Starts a {@link SwitchableSite}. */
export async function startSwitchableSite(): Promise<SwitchableSite> {
  const behaviours = new Map<string, Behaviour>();
  const hanging = new Set<ServerResponse>();
  const site = await startLocalSite({
    '/site': (request, response) => {
      const n = new URL(
        request.url ?? '/',
        'http://site.test',
      ).searchParams.get('n');
      const behaviour = behaviours.get(n ?? '') ?? 'up';
      if (behaviour === 'hang') {
        hanging.add(response);
        response.once('close', () => hanging.delete(response));
        return;
      }
      const status = behaviour === 'up' ? 200 : 503;
      response.writeHead(status, { 'content-type': 'text/plain' });
      response.end(behaviour === 'up' ? 'ok\n' : 'unavailable\n');
    },
  });
  const target = (n: number | string) => `/site?n=${n}`;
  return {
    site,
    url: (n) => site.url(target(n)),
    set(n, behaviour) {
      behaviours.set(String(n), behaviour);
    },
    hits: (n) =>
      site.requests.filter((request) => request.target === target(n)).length,
    async close() {
      for (const response of hanging) response.destroy();
      await site.close();
    },
  };
}
