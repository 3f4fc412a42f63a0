/**
 * Plays the atlas's model paths on the built page in Chromium (Playwright)
 * with the browser tests' visitor actions (harness/model/
 * visitor.ts): typing, clicking, Escape. Here Playwright's routes hold
 * the requests the tests' proxy holds in the browser tests: each sign-up
 * until the path says how it ends, answered with the reply that makes the
 * page's client decide that outcome (harness/model/serverReplies.ts),
 * and each chunk until it arrives or fails. The browser's trip to `/` after
 * a success gets no page (204), so the page stays on screen in `success`.
 * Before each picture the page must show what the hand-written reference
 * expects after the events played (harness/model/reference.ts,
 * views.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Page, Route } from 'playwright-core';
import type { EventObject } from 'xstate';
import type { ConsentEvent, ConsentInput } from '../../machines/consentMachine';
import type { SignUpInput } from '../../machines/signUpMachine';
import { SIGN_UP_PATH } from '../../contract/signUp';
import {
  expectedConsentRun,
  expectedSignUpRun,
} from '../../harness/model/reference';
import { replyFor, type Reply } from '../../harness/model/serverReplies';
import type {
  SignUpModelEvent,
  SubmitOutcome,
} from '../../harness/model/signUpModel';
import {
  expectedConsentView,
  expectedSignUpView,
  readConsentView,
  readSignUpView,
} from '../../harness/model/views';
import {
  performConsent,
  performSignUp,
  type HeldChunkRequests,
  type HeldSignUpRequest,
  type VisitorPage,
} from '../../harness/model/visitor';
import type { OpenOptions } from '../../harness/page/signUpPage';

/** How one machine's paths are played on the page. */
export interface PageDriver<TInput> {
  /** Where and how the visit starts (address query, stored cookie). */
  visit: (input: TInput) => Omit<OpenOptions, 'viewport'>;
  /** Routes the page needs before the first event. */
  prepare: (page: Page, origin: string) => Promise<void>;
  /** Does what a visitor does for the event. */
  perform: (page: Page, event: EventObject) => Promise<void>;
  /**
   * Resolves once the page shows what the reference expects after
   * `played`, the path's events so far, else throws.
   */
  shows: (
    page: Page,
    input: TInput,
    played: readonly EventObject[],
  ) => Promise<void>;
}

/**
 * A Playwright page as the visitor's actions use it. A function to
 * evaluate is sent as its source, its arguments as JSON; tsx (esbuild's
 * keepNames) wraps inner functions in `__name(…)`, a helper the page lacks.
 */
function visitorPage(page: Page): VisitorPage {
  return {
    click: (selector) => page.locator(selector).click(),
    type: (text) => page.keyboard.type(text),
    press: (key) => page.keyboard.press(key),
    evaluate: <T, A extends unknown[]>(
      fn: (...args: A) => T | Promise<T>,
      ...args: A
    ) =>
      page.evaluate(
        `(globalThis.__name ??= (f) => f, (${String(fn)})(...${JSON.stringify(args)}))`,
      ) as Promise<T>,
  };
}

const WAIT_MS = 10_000;

/**
 * Polls `read` in the page until it equals `expected`.
 * @throws Error with both views after {@link WAIT_MS}
 */
async function showsView<T>(page: Page, read: () => T, expected: T) {
  const deadline = Date.now() + WAIT_MS;
  let seen: unknown;
  while (Date.now() < deadline) {
    seen = await visitorPage(page).evaluate(read);
    if (isDeepStrictEqual(seen, expected)) return;
    await page.waitForTimeout(50);
  }
  throw new Error(
    `the page does not show the model's state:\nexpected ${JSON.stringify(expected)}\nseen     ${JSON.stringify(seen)}`,
  );
}

/** Answers a held request with a reply, or fails its connection. */
function answer(route: Route, reply: Reply): Promise<void> {
  if (reply.kind === 'network-error') return route.abort('failed');
  if (reply.kind === 'timeout') return route.abort('timedout');
  return route.fulfill({
    status: reply.status,
    contentType: reply.contentType,
    body: reply.body,
  });
}

/** What each page holds, and the event being played (for `pass`). */
interface Held {
  signUps: HeldSignUpRequest[];
  chunks: HeldChunkRequests;
  playing: SignUpModelEvent | undefined;
}
const heldOf = new WeakMap<Page, Held>();

/** The chunks' files. */
const CHUNK_FILES = {
  submit: /^\/submitChunk\.[0-9a-f]+\.js$/,
  hostRule: /^\/hostRuleChunk\.[0-9a-f]+\.js$/,
} as const;

export const signUpDriver: PageDriver<SignUpInput> = {
  visit: () => ({}),
  async prepare(page, origin) {
    const held: Held = {
      signUps: [],
      chunks: { submit: [], hostRule: [] },
      playing: undefined,
    };
    heldOf.set(page, held);
    // A success is answered here too: the model signs up one address, and
    // the atlas plays its paths at several widths against one service.
    await page.route(
      (url) => url.pathname === SIGN_UP_PATH,
      (route) => {
        held.signUps.push({
          settle: (outcome) =>
            void answer(
              route,
              outcome === 'pass'
                ? replyFor(held.playing as SubmitOutcome)
                : outcome,
            ),
        });
      },
    );
    // Routing turns the HTTP cache off: the page's import of a chunk it
    // has fetched asks again, and the network is up for what arrived.
    const arrived = new Set<string>();
    for (const kind of ['submit', 'hostRule'] as const) {
      await page.route(
        (url) => CHUNK_FILES[kind].test(url.pathname),
        (route) => {
          const url = route.request().url();
          if (arrived.has(url)) return void route.continue();
          held.chunks[kind].push({
            settle: (outcome) => {
              if (outcome === 'pass') arrived.add(url);
              void (outcome === 'pass'
                ? route.continue()
                : route.abort('internetdisconnected'));
            },
          });
        },
      );
    }
    // After a success the page leaves for `/`. Answered 204 No Content,
    // which keeps the current document (HTML's navigate algorithm), so
    // `success` stays on screen as the visitor sees it until the home page
    // arrives. A navigation held open instead blocks every page.evaluate.
    await page.route(
      (url) => url.origin === origin && url.pathname === '/',
      (route) => route.fulfill({ status: 204 }),
    );
  },
  async perform(page, event) {
    const held = heldOf.get(page);
    if (!held) throw new Error('signUpDriver.prepare was not run');
    held.playing = event as SignUpModelEvent;
    await performSignUp(
      visitorPage(page),
      held.signUps,
      held.playing,
      held.chunks,
    );
  },
  shows: (page, input, played) => {
    const run = expectedSignUpRun(input, played as SignUpModelEvent[]);
    return showsView(
      page,
      readSignUpView,
      expectedSignUpView(run.after.at(-1) ?? run.initial),
    );
  },
};

/** The consent cookie a visit starts with, for each stored choice. */
function storedCookie(input: ConsentInput): string | null {
  if (input.storedChoice === 'accepted') return '1';
  if (input.storedChoice === 'rejected') return '0';
  return null;
}

export const consentDriver: PageDriver<ConsentInput> = {
  visit: (input) => {
    const cookie = storedCookie(input);
    return {
      query: input.utmSource ? `?utm_source=${input.utmSource}` : '',
      ...(cookie !== null && {
        storedConsent: cookie,
        storedRevision: input.storedRevision?.toString() ?? null,
      }),
      ...(input.gpcSignal && { gpc: 'property' as const }),
    };
  },
  prepare: async () => {},
  perform: (page, event) => performConsent(visitorPage(page), event),
  shows: (page, input, played) => {
    const run = expectedConsentRun(input, played as ConsentEvent[]);
    return showsView(
      page,
      readConsentView,
      expectedConsentView(run.after.at(-1) ?? run.initial, storedCookie(input)),
    );
  },
};
