/**
 * Drives the built page through a model path's events, as a visitor would:
 * pointer clicks and keyboard typing. Used in any engine
 * (tests/browser/engines.test.ts, over tests/browser/support/engines) and
 * by the state atlas (scripts/atlas/drivers.ts, over Playwright). The
 * sign-up request is held until the path says how it ends: `pass` lets a
 * success go on, a failure gets its reply in the API's place; so is each
 * of the page's chunks (ADR-0058, ADR-0071): it arrives, or the connection
 * fails (ADR-0059). Whoever holds the requests (the tests' proxy, Playwright's
 * routes) settles them.
 */
import type { EventObject } from 'xstate';
import { replyFor, type Reply } from './serverReplies';
import type { SignUpModelEvent } from './signUpModel';

/**
 * What a visitor's actions need of a page, in any driver (the engines'
 * EnginePage, tests/browser/support/engines/browser.ts, has it).
 */
export interface VisitorPage {
  /** Clicks the element's centre, as a pointer would. */
  click(selector: string): Promise<void>;
  /** Types text with the keyboard into the focused element. */
  type(text: string): Promise<void>;
  press(key: 'Escape' | 'Backspace'): Promise<void>;
  /** Runs a self-contained function in the page; JSON in and out. */
  evaluate<T, A extends unknown[]>(
    fn: (...args: A) => T | Promise<T>,
    ...args: A
  ): Promise<T>;
}

/**
 * A held sign-up request: `pass` lets it go on, a {@link Reply} answers it
 * in the API's place.
 */
export interface HeldSignUpRequest {
  settle: (outcome: 'pass' | Reply) => void;
}

/** A held chunk request: it arrives (`pass`) or its connection fails. */
export interface HeldChunkRequest {
  settle: (outcome: 'pass' | 'fail') => void;
}

/** The held requests for each chunk, in the order they came. */
export interface HeldChunkRequests {
  submit: HeldChunkRequest[];
  hostRule: HeldChunkRequest[];
  /**
   * Where the network fails a chunk's resend (an engine's own retry of a
   * failed fetch, which the page never sees): ends that, since the page's
   * next request for the chunk, after the visitor's next action, is the
   * page's own.
   */
  forgetFailures?: () => void;
}

const HELD_WAIT_MS = 10_000;

/**
 * The oldest of `held`, once the page has made it: polled for up to
 * {@link HELD_WAIT_MS}.
 *
 * @throws Error naming `what` when the page made none
 */
async function takeHeld<T>(held: T[], what: string): Promise<T> {
  const deadline = Date.now() + HELD_WAIT_MS;
  while (held.length === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const oldest = held.shift();
  if (oldest === undefined) throw new Error(`the page made no ${what}`);
  return oldest;
}

const isChecked = (page: VisitorPage, selector: string) =>
  page.evaluate(
    (css: string) =>
      document.querySelector<HTMLInputElement>(css)?.checked ?? false,
    selector,
  );

/**
 * Replaces a text field's value by typing: click into it, select what is
 * there, type over it. An empty value is typed and erased (`x`, Backspace),
 * so the page sees an edit even when the field was empty.
 */
export async function typeInto(page: VisitorPage, name: string, value: string) {
  const selector = `#signup-form input[name="${name}"]`;
  await page.click(selector);
  await page.evaluate(
    (css: string) => document.querySelector<HTMLInputElement>(css)?.select(),
    selector,
  );
  await page.type(value || 'x');
  if (!value) await page.press('Backspace');
}

/**
 * Does what a visitor does for a sign-up model event; an outcome event
 * settles the oldest held request of its kind (waiting up to 10 s for the
 * page to make it).
 *
 * @throws Error when the page made no request for an outcome event
 */
export async function performSignUp(
  page: VisitorPage,
  held: HeldSignUpRequest[],
  event: SignUpModelEvent,
  chunks: HeldChunkRequests = { submit: [], hostRule: [] },
) {
  // The page showed the last step's outcome: an engine's resend of a
  // failed chunk is over, and any fetch from now on is the page's.
  chunks.forgetFailures?.();
  switch (event.type) {
    case 'field.change':
      return typeInto(page, event.field, event.value);
    case 'checkbox.change': {
      const box = `#signup-form input[name="${event.field}"]`;
      if ((await isChecked(page, box)) === event.checked) await page.click(box);
      return page.click(box);
    }
    case 'captcha.solve': {
      const box = '[data-testid="fake-captcha"]';
      if (await isChecked(page, box)) await page.click(box);
      return page.click(box);
    }
    case 'captcha.expire':
      await page.evaluate(() =>
        (
          window as unknown as { __fakeCaptcha: { expire: () => void } }
        ).__fakeCaptcha.expire(),
      );
      return;
    case 'submit':
      return page.click('#signup-form button[type="submit"]');
    case 'rules.loaded':
    case 'rules.offline': {
      // The chunk was asked for on the first typing, or by the submit.
      const chunk = await takeHeld(chunks.submit, 'submit chunk request');
      chunk.settle(event.type === 'rules.loaded' ? 'pass' : 'fail');
      return;
    }
    case 'hostRule.loaded':
    case 'hostRule.offline': {
      // The chunk was asked for when the host was typed, or by the submit.
      const chunk = await takeHeld(chunks.hostRule, 'host rule chunk request');
      chunk.settle(event.type === 'hostRule.loaded' ? 'pass' : 'fail');
      return;
    }
    case 'xstate.done.actor.submitSignUp':
    case 'xstate.error.actor.submitSignUp': {
      const request = await takeHeld(held, 'sign-up request');
      // A success comes from whatever `pass` lets the request reach.
      request.settle(
        event.type === 'xstate.done.actor.submitSignUp'
          ? 'pass'
          : replyFor(event),
      );
      return;
    }
  }
}

/** Clicks or presses what a visitor would for a consent event. */
export async function performConsent(page: VisitorPage, event: EventObject) {
  switch (event.type) {
    case 'consent.accept':
      return page.click('[data-testid="consent-accept"]');
    case 'consent.reject':
      return page.click('[data-testid="consent-reject"]');
    case 'settings.open':
      return page.click('[data-testid="consent-settings"]');
    case 'modal.close':
      return page.press('Escape');
    default:
      throw new Error(`no visitor action for ${event.type}`);
  }
}
