/**
 * Drives the built page in any engine (tests/browser/support/engines/browser.ts)
 * through a model path's events, as a visitor would: pointer clicks and
 * keyboard typing (tests/browser/engines.test.ts). The sign-up request is
 * held by the tests' proxy until the path says how it ends: a success goes
 * on to the local API, a failure gets its reply in the API's place; so is
 * each of the page's chunks (D58, D71): it arrives, or the connection
 * fails (D59).
 */
import { expect } from 'vitest';
import type { EventObject } from 'xstate';
import type { EnginePage } from './engines/browser';
import type { HeldChunk, HeldChunks, HeldSignUp } from './engines/network';
import { replyFor } from '../../support/model/serverReplies';
import type { SignUpModelEvent } from '../../support/model/signUpModel';

const isChecked = (page: EnginePage, selector: string) =>
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
export async function typeInto(page: EnginePage, name: string, value: string) {
  const selector = `#signup-form input[name="${name}"]`;
  await page.click(selector);
  await page.evaluate(
    (css: string) => document.querySelector<HTMLInputElement>(css)?.select(),
    selector,
  );
  await page.type(value || 'x');
  if (!value) await page.press('Backspace');
}

export async function performSignUp(
  page: EnginePage,
  held: HeldSignUp[],
  event: SignUpModelEvent,
  chunks: HeldChunks = { submit: [], hostRule: [] },
) {
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
    case 'xstate.done.actor.loadRules':
    case 'xstate.error.actor.loadRules': {
      // The chunk was asked for on the first typing, or by the submit.
      await expect.poll(() => chunks.submit.length).toBeGreaterThan(0);
      const chunk = chunks.submit.shift() as HeldChunk;
      chunk.settle(
        event.type === 'xstate.done.actor.loadRules' ? 'pass' : 'fail',
      );
      return;
    }
    case 'xstate.done.actor.loadHostRule':
    case 'xstate.error.actor.loadHostRule': {
      // The chunk was asked for when the host was typed, or by the submit.
      await expect.poll(() => chunks.hostRule.length).toBeGreaterThan(0);
      const chunk = chunks.hostRule.shift() as HeldChunk;
      chunk.settle(
        event.type === 'xstate.done.actor.loadHostRule' ? 'pass' : 'fail',
      );
      return;
    }
    case 'xstate.done.actor.submitSignUp':
    case 'xstate.error.actor.submitSignUp': {
      await expect.poll(() => held.length).toBeGreaterThan(0);
      const request = held.shift() as HeldSignUp;
      // A success comes from the local API itself.
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
export async function performConsent(page: EnginePage, event: EventObject) {
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
