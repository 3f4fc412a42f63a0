/**
 * Plays the atlas's model paths on the built page in Chromium (Playwright),
 * as a visitor would: typing, clicking, Escape. The sign-up request is held
 * until the path says how it ends, and then answered with the reply that
 * makes the page's client decide that outcome (tests/support/model/serverReplies.ts);
 * the browser's trip to `/` after a success gets no page (204), so the
 * page stays on screen in `success`. Before each picture the page must show
 * what the hand-written reference expects after the events played
 * (tests/support/model/reference.ts, views.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Page, Route } from 'playwright-core';
import type { EventObject } from 'xstate';
import type { ConsentEvent, ConsentInput } from '../../machines/consentMachine';
import type { SignUpInput } from '../../machines/signUpMachine';
import { SIGN_UP_PATH } from '../../machines/signUpContract';
import {
  expectedConsentRun,
  expectedSignUpRun,
} from '../../tests/support/model/reference';
import { replyFor } from '../../tests/support/model/serverReplies';
import type { SignUpModelEvent } from '../../tests/support/model/signUpModel';
import {
  expectedConsentView,
  expectedSignUpView,
  readConsentView,
  readSignUpView,
} from '../../tests/support/model/views';
import type { OpenOptions } from '../../tests/support/page/signUpPage';

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

const WAIT_MS = 10_000;

/**
 * Polls `read` in the page until it equals `expected`.
 * @throws Error with both views after {@link WAIT_MS}
 */
async function showsView<T>(page: Page, read: () => T, expected: T) {
  const deadline = Date.now() + WAIT_MS;
  let seen: unknown;
  while (Date.now() < deadline) {
    // tsx (esbuild's keepNames) wraps the readers' inner functions in
    // `__name(…)`, a helper the page does not have.
    await page.evaluate('globalThis.__name ??= (fn) => fn');
    seen = await page.evaluate(read);
    if (isDeepStrictEqual(seen, expected)) return;
    await page.waitForTimeout(50);
  }
  throw new Error(
    `the page does not show the model's state:\nexpected ${JSON.stringify(expected)}\nseen     ${JSON.stringify(seen)}`,
  );
}

const isChecked = (page: Page, selector: string) =>
  page.locator(selector).isChecked();

/**
 * The sign-up requests each page holds, oldest first, until an outcome
 * event answers them.
 */
const heldSignUps = new WeakMap<Page, Route[]>();

/**
 * The chunk requests each page holds, oldest first: the submit chunk's
 * (D71) and the host rule's (D58).
 */
const heldChunks = new WeakMap<Page, { submit: Route[]; hostRule: Route[] }>();

/** The chunks' files, with or without a retry's query. */
const CHUNK_FILES = {
  submit: /^\/submitChunk\.[0-9a-f]+\.js$/,
  hostRule: /^\/hostRuleChunk\.[0-9a-f]+\.js$/,
} as const;

/**
 * The oldest of `held`, once the page has made it: polled for up to
 * {@link WAIT_MS}.
 *
 * @throws Error naming `what` when the page made none
 */
async function takeHeld(
  page: Page,
  held: Route[],
  what: string,
): Promise<Route> {
  const deadline = Date.now() + WAIT_MS;
  while (held.length === 0 && Date.now() < deadline) {
    await page.waitForTimeout(20);
  }
  const route = held.shift();
  if (!route) throw new Error(`the page made no ${what}`);
  return route;
}

export const signUpDriver: PageDriver<SignUpInput> = {
  visit: () => ({}),
  async prepare(page, origin) {
    const held: Route[] = [];
    heldSignUps.set(page, held);
    await page.route(
      (url) => url.pathname === SIGN_UP_PATH,
      (route) => {
        held.push(route);
      },
    );
    const chunks = { submit: [] as Route[], hostRule: [] as Route[] };
    heldChunks.set(page, chunks);
    for (const kind of ['submit', 'hostRule'] as const) {
      await page.route(
        (url) => CHUNK_FILES[kind].test(url.pathname),
        (route) => {
          chunks[kind].push(route);
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
    const e = event as SignUpModelEvent;
    switch (e.type) {
      case 'field.change': {
        // Select what is there and type over it, as the model tests do; an
        // empty value is typed and erased so the page sees an edit.
        const field = page.locator(`#signup-form input[name="${e.field}"]`);
        await field.click();
        await field.selectText();
        await page.keyboard.type(e.value || 'x');
        if (!e.value) await page.keyboard.press('Backspace');
        return;
      }
      case 'checkbox.change': {
        const box = `#signup-form input[name="${e.field}"]`;
        if ((await isChecked(page, box)) === e.checked) {
          await page.locator(box).click();
        }
        return page.locator(box).click();
      }
      case 'captcha.solve': {
        const box = '[data-testid="fake-captcha"]';
        if (await isChecked(page, box)) await page.locator(box).click();
        return page.locator(box).click();
      }
      case 'captcha.expire':
        return page.evaluate(() =>
          (
            window as unknown as { __fakeCaptcha: { expire: () => void } }
          ).__fakeCaptcha.expire(),
        );
      case 'submit':
        return page.locator('#signup-form button[type="submit"]').click();
      case 'xstate.done.actor.loadRules':
      case 'xstate.error.actor.loadRules': {
        const route = await takeHeld(
          page,
          heldChunks.get(page)?.submit ?? [],
          'submit chunk request',
        );
        return e.type === 'xstate.done.actor.loadRules'
          ? route.continue()
          : route.abort('internetdisconnected');
      }
      case 'xstate.done.actor.loadHostRule':
      case 'xstate.error.actor.loadHostRule': {
        const route = await takeHeld(
          page,
          heldChunks.get(page)?.hostRule ?? [],
          'host rule chunk request',
        );
        return e.type === 'xstate.done.actor.loadHostRule'
          ? route.continue()
          : route.abort('internetdisconnected');
      }
      case 'xstate.done.actor.submitSignUp':
      case 'xstate.error.actor.submitSignUp': {
        const route = await takeHeld(
          page,
          heldSignUps.get(page) ?? [],
          'sign-up request',
        );
        const reply = replyFor(e);
        if (reply.kind === 'network-error') return route.abort('failed');
        if (reply.kind === 'timeout') return route.abort('timedout');
        return route.fulfill({
          status: reply.status,
          contentType: reply.contentType,
          body: reply.body,
        });
      }
    }
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
  async perform(page, event) {
    switch (event.type) {
      case 'consent.accept':
        return page.getByTestId('consent-accept').click();
      case 'consent.reject':
        return page.getByTestId('consent-reject').click();
      case 'settings.open':
        return page.getByTestId('consent-settings').click();
      case 'modal.close':
        return page.keyboard.press('Escape');
      default:
        throw new Error(`no visitor action for ${event.type}`);
    }
  },
  shows: (page, input, played) => {
    const run = expectedConsentRun(input, played as ConsentEvent[]);
    return showsView(
      page,
      readConsentView,
      expectedConsentView(run.after.at(-1) ?? run.initial, storedCookie(input)),
    );
  },
};
