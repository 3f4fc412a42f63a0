/**
 * Drives the built page in Chromium through a model path's events, as a
 * visitor would (tests/browser/model.test.ts, tests/browser/a11y.test.ts).
 * The sign-up request is held until the path says how it ends: a success
 * goes on to the local API, a failure gets its reply from `route`.
 */
import { expect } from 'vitest';
import type { Page, Route } from 'playwright-core';
import type { EventObject } from 'xstate';
import { replyFor } from './serverReplies';
import type { SignUpModelEvent } from './signUpModel';

/** Holds every sign-up request until {@link performSignUp} answers it. */
export async function holdSignUpRequests(page: Page): Promise<Route[]> {
  const held: Route[] = [];
  await page.route('**/2/account/signup/', (route) => {
    held.push(route);
  });
  return held;
}

export async function performSignUp(
  page: Page,
  held: Route[],
  event: SignUpModelEvent,
) {
  switch (event.type) {
    case 'field.change': {
      const input = page.locator(`#signup-form input[name=${event.field}]`);
      await input.fill(event.value);
      if (!event.value) {
        await input.pressSequentially('x');
        await input.press('Backspace');
      }
      return;
    }
    case 'checkbox.change': {
      const box = page.locator(`#signup-form input[name=${event.field}]`);
      if ((await box.isChecked()) === event.checked) await box.click();
      await box.click();
      return;
    }
    case 'captcha.solve': {
      const box = page.getByTestId('fake-captcha');
      if (await box.isChecked()) await box.click();
      await box.click();
      return;
    }
    case 'captcha.expire':
      await page.evaluate(() =>
        (
          window as unknown as { __fakeCaptcha: { expire: () => void } }
        ).__fakeCaptcha.expire(),
      );
      return;
    case 'submit':
      await page.locator('#signup-form button[type=submit]').click();
      return;
    case 'xstate.done.actor.submitSignUp':
    case 'xstate.error.actor.submitSignUp': {
      await expect.poll(() => held.length).toBeGreaterThan(0);
      const route = held.shift() as Route;
      if (event.type === 'xstate.done.actor.submitSignUp') {
        // A success comes from the local API itself.
        await route.continue();
        return;
      }
      const reply = replyFor(event);
      if (reply.kind === 'network-error') await route.abort('failed');
      else if (reply.kind === 'timeout') await route.abort('timedout');
      else {
        await route.fulfill({
          status: reply.status,
          contentType: reply.contentType,
          body: reply.body,
        });
      }
      return;
    }
  }
}

/** Clicks or presses what a visitor would for a consent event. */
export async function performConsent(page: Page, event: EventObject) {
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
}
