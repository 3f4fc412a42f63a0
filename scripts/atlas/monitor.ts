/**
 * The site monitor's part of the atlas: `/`, the account page, as the
 * service renders it in each state of machines/monitorMachine.ts (issue
 * 45). The monitor machine is the service's, with no model of the page to
 * plan paths from: its states are reached by one sign-up and the checks
 * that follow it, in the order a site first passes them ({@link STOPS}),
 * and each is pictured once `/` says it in the issue's words.
 *
 * The service is one of its own (harness/page/monitoredService.ts),
 * not the atlas's (which checks no site), and it stays on loopback: the
 * site is a local server on 127.0.0.1, its name `site.test` is resolved
 * from the tests' table, every connection passes the loopback tripwire,
 * and the monitor's clock is the atlas's to move, so a day of checks takes
 * a second.
 */
import type { Browser, Page } from 'playwright-core';
import type { AnyStateNode } from 'xstate';
import {
  INITIAL_MONITOR_CONTEXT,
  MONITOR_STATES,
  monitorMachine,
  stepMonitor,
  type MonitorContext,
  type MonitorState,
} from '../../machines/monitorMachine';
import {
  startMonitoredService,
  TEST_INTERVAL_MS,
} from '../../harness/page/monitoredService';
import {
  fillSignUpForm,
  openSignUpPage,
  submitButton,
  validEntry,
} from '../../harness/page/signUpPage';
import { acceptedEvents } from './plan';

/** What `/` says of each state (issue 45), in `[data-testid=monitor-state]`. */
export const MONITOR_STATE_WORDS: Readonly<Record<MonitorState, string>> = {
  pending: 'Checking for the first time',
  up: 'Up',
  suspect: 'Checking again',
  down: 'Down',
};

const HOUR_MS = 3_600_000;

/** One check: how the site answers, and how long after the one before. */
interface Check {
  site: 'up' | 'fail';
  afterMs: number;
}

/** The checks played before one picture, and how the atlas lists them. */
interface Stop {
  checks: readonly Check[];
  /** The checks as the picture's path lists them. */
  events: readonly string[];
}

/**
 * The pictures' stops, one per state. Before `up`, a day of hourly checks
 * after the first, so that the chart of `up`, `suspect` and `down` shows
 * 24 hours of answers rather than one bar.
 */
const STOPS: readonly Stop[] = [
  { checks: [], events: [] },
  {
    checks: [
      { site: 'up', afterMs: 0 },
      ...Array.from({ length: 24 }, () => ({
        site: 'up' as const,
        afterMs: HOUR_MS,
      })),
    ],
    events: [
      'check.up: the first check',
      'check.up × 24: one an hour, a day of answers for the chart',
    ],
  },
  {
    checks: [{ site: 'fail', afterMs: TEST_INTERVAL_MS }],
    events: ['check.down: HTTP 503, an interval later'],
  },
  {
    checks: [{ site: 'fail', afterMs: TEST_INTERVAL_MS / 3 }],
    events: ['check.down: HTTP 503, a third of the interval later'],
  },
];

/** Where the pictures' visit starts, as the atlas page says it. */
export const MONITOR_FROM =
  'signed up at /signup with a site on this machine; / as the service renders it, its checks run on a clock the atlas moves';

/** A state of the monitor as `/` shows it, ready to be pictured. */
export interface MonitorStop {
  /** The state node, e.g. `monitor.down`. */
  stateId: string;
  /** Its tags and the events it handles, from the machine. */
  tags: string[];
  accepts: string[];
  /** Every check that reached it, as the atlas lists them. */
  events: string[];
}

/** How {@link playMonitorStates} hands each state to the atlas. */
export interface MonitorHooks {
  /** Run on the browser's page before it loads anything of the service's. */
  prepare: (page: Page) => Promise<void>;
  /** Pictures `page`, which shows `/` in the stop's state. */
  picture: (page: Page, stop: MonitorStop) => Promise<void>;
}

function nodeOf(state: MonitorState): AnyStateNode {
  return monitorMachine.getStateNodeById(`monitor.${state}`);
}

/**
 * Signs up with a local site on a service of its own, then brings the
 * site through {@link STOPS}, and hands `/` to `hooks.picture` in each
 * state once it says the state in the words.
 *
 * @returns the stops, in the order pictured: every state of the machine
 * @throws Error when `/` does not show the state the machine is in after
 *   the checks played, when a check does not run, or when a check tried
 *   to leave loopback
 */
export async function playMonitorStates(
  browser: Browser,
  hooks: MonitorHooks,
): Promise<MonitorStop[]> {
  const service = await startMonitoredService();
  const { origin } = service.server;
  const opened = await openSignUpPage(browser, origin);
  const stops: MonitorStop[] = [];
  try {
    const { page } = opened;
    await hooks.prepare(page);
    const entry = validEntry({ url: service.site.url(1) });
    await fillSignUpForm(page, entry);
    await submitButton(page).click();
    await page.waitForURL(`${origin}/`);
    // The owner confirms the address with the magic link: only then is
    // the site checked after its first check (ADR-0120).
    await page.goto((await service.confirmationLink(entry.email)).href);
    await page.getByTestId('link-continue').click();
    await page.waitForURL(`${origin}/`);

    // What the machine says the checks lead to, which `/` must show.
    let state: MonitorState = 'pending';
    let context: MonitorContext = INITIAL_MONITOR_CONTEXT;
    const events: string[] = [];
    for (const stop of STOPS) {
      for (const check of stop.checks) {
        service.site.set(1, check.site);
        const at = service.clock.now().getTime() + check.afterMs;
        const ran = await service.checksAfter(check.afterMs);
        if (ran !== 1) throw new Error(`${ran} checks ran where one was due`);
        ({ state, context } = stepMonitor(
          state,
          context,
          check.site === 'up'
            ? { type: 'check.up', at }
            : {
                type: 'check.down',
                at,
                reason: { code: 'status', status: 503 },
              },
        ));
      }
      events.push(...stop.events);
      await page.goto(`${origin}/`);
      const shown = (await page.getByTestId('monitor-state').innerText())
        .replace(/\s+/g, ' ')
        .trim();
      if (shown !== MONITOR_STATE_WORDS[state]) {
        throw new Error(
          `/ says "${shown}" where the monitor is ${state} ("${MONITOR_STATE_WORDS[state]}")`,
        );
      }
      const node = nodeOf(state);
      const picturedStop: MonitorStop = {
        stateId: node.id,
        tags: [...node.tags].sort(),
        accepts: acceptedEvents([node]),
        events: [...events],
      };
      await hooks.picture(page, picturedStop);
      stops.push(picturedStop);
    }
    if (opened.pageErrors.length > 0) {
      throw new Error(`the page threw: ${opened.pageErrors.join('; ')}`);
    }
  } finally {
    await opened.context.close();
    await service.close();
  }
  const missed = MONITOR_STATES.filter(
    (state) => !stops.some((stop) => stop.stateId === nodeOf(state).id),
  );
  if (missed.length > 0) throw new Error(`not pictured: ${missed.join(', ')}`);
  if (service.tripwire.violations.length > 0) {
    throw new Error(
      `a check tried to leave loopback: ${JSON.stringify(service.tripwire.violations)}`,
    );
  }
  return stops;
}
