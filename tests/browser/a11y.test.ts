/**
 * Accessibility in Chromium (WCAG 2.2 AA, GOV.UK's form patterns): axe-core
 * with the WCAG 2.2 AA tags and no rule disabled finds nothing in any state
 * of either machine, reached by the model's own paths; a keyboard alone can
 * sign up; focus goes to the error summary and never gets lost.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { EventObject } from 'xstate';
import type { ConsentInput } from '../../machines/consentMachine';
import { useChromiumAndServer } from '../support/browserSuite';
import {
  holdSignUpRequests,
  performConsent,
  performSignUp,
} from '../support/model/browserDriver';
import {
  consentModel,
  describeConsentInput,
} from '../support/model/consentModel';
import { describePath } from '../support/model/modelRun';
import { planStatePaths, type PlannedPath } from '../support/model/planner';
import {
  signUpCases,
  signUpModel,
  type SignUpModelEvent,
} from '../support/model/signUpModel';
import {
  openSignUpPage,
  submitButton,
  validEntry,
  PHONE,
} from '../support/signUpPage';
import { startTestServer } from '../support/testServer';

const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

const suite = useChromiumAndServer();

async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(WCAG_22_AA).analyze();
  return results.violations.map(
    (violation) =>
      `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}

const focusedId = (page: Page) =>
  page.evaluate(
    () =>
      document.activeElement?.id ||
      document.activeElement?.getAttribute('data-testid') ||
      document.activeElement?.className ||
      document.activeElement?.tagName,
  );

/** Every state of the sign-up machine, and each failure's own look. */
function signUpPathsToCheck(): PlannedPath<object>[] {
  const statePaths = planStatePaths(signUpModel);
  const submitting = statePaths.find((path) =>
    path.events.some((event) => event.type === 'submit'),
  );
  if (!submitting) throw new Error('the model has no path to submitting');
  const failures = signUpCases
    .filter((event) => event.type === 'xstate.error.actor.submitSignUp')
    .map((event) => ({ ...submitting, events: [...submitting.events, event] }));
  const clientErrors = { input: {}, events: [{ type: 'submit' }], covers: [] };
  return [...statePaths, clientErrors, ...failures];
}

describe('axe-core finds no WCAG 2.2 AA violation', () => {
  for (const path of signUpPathsToCheck()) {
    for (const [size, viewport] of [
      ['desktop', undefined],
      ['phone', PHONE],
    ] as const) {
      it(`${size}: ${describePath(signUpModel, path)}`, async () => {
        const succeeds =
          path.events.at(-1)?.type === 'xstate.done.actor.submitSignUp';
        // The model signs up one e-mail address: each success needs its own
        // (in-memory) API.
        const api = succeeds ? await startTestServer() : suite.server;
        const { context, page } = await openSignUpPage(
          suite.browser,
          api.origin,
          {
            ...(viewport && { viewport }),
          },
        );
        const held = await holdSignUpRequests(page);
        for (const event of path.events as SignUpModelEvent[]) {
          await performSignUp(page, held, event);
        }
        if (succeeds) {
          await page.waitForURL(`${api.origin}/`);
        } else if (path.events.length > 0) {
          await page.waitForTimeout(100);
        }
        await expect(axeViolations(page)).resolves.toEqual([]);
        await context.close();
        if (api !== suite.server) await api.close();
      });
    }
  }

  for (const path of planStatePaths(consentModel)) {
    it(describePath(consentModel, path, describeConsentInput), async () => {
      const input: ConsentInput = path.input;
      const { context, page } = await openSignUpPage(
        suite.browser,
        suite.server.origin,
        {
          query: input.utmSource ? `?utm_source=${input.utmSource}` : '',
          ...(input.storedChoice !== 'unset' && {
            storedConsent: input.storedChoice === 'accepted' ? '1' : '0',
          }),
        },
      );
      for (const event of path.events as EventObject[]) {
        await performConsent(page, event);
      }
      await expect(axeViolations(page)).resolves.toEqual([]);
      await context.close();
    });
  }
});

describe('keyboard and focus', () => {
  it('a keyboard alone signs up: Tab, typing, Space and Enter', async () => {
    const { context, page } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    const entry = validEntry();
    const tabTo = async (id: string) => {
      for (let presses = 0; presses < 12; presses += 1) {
        await page.keyboard.press('Tab');
        if ((await focusedId(page)) === id) return;
      }
      throw new Error(`Tab never reached #${id}`);
    };
    await tabTo('name');
    await page.keyboard.type(entry.name);
    await tabTo('email');
    await page.keyboard.type(entry.email);
    await tabTo('url');
    await page.keyboard.type(entry.url);
    await tabTo('tos');
    await page.keyboard.press('Space');
    await tabTo('fake-captcha');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await expect(
      page.evaluate(() => document.activeElement?.getAttribute('type')),
    ).resolves.toBe('submit');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${suite.server.origin}/`);
    await context.close();
  });

  it('a failed submit moves focus to the error summary, whose links focus each field', async () => {
    const { context, page } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    await submitButton(page).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedId(page)).toBe('error-summary');
    const summary = page.locator('.error-summary');
    await expect(
      summary.locator('[role=alert] h2').textContent(),
    ).resolves.toBe('There is a problem');
    await summary
      .getByRole('link', { name: 'Enter your email address' })
      .click();
    await expect(focusedId(page)).resolves.toBe('email');
    await summary
      .getByRole('link', { name: /terms of service/ })
      .press('Enter');
    await expect(focusedId(page)).resolves.toBe('tos');
    await context.close();
  });

  it('while submitting, focus stays on the pressed control; a server failure takes it to the message', async () => {
    const { context, page } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    const held = await holdSignUpRequests(page);
    const fill = signUpCases.filter(
      (event) =>
        (event.type === 'field.change' &&
          ['Ada Lovelace', 'ada@example.com', 'example.com'].includes(
            event.value,
          )) ||
        (event.type === 'checkbox.change' &&
          event.field === 'tos' &&
          event.checked) ||
        event.type === 'captcha.solve',
    );
    for (const event of fill) await performSignUp(page, held, event);
    // Enter in the URL field submits the form with focus in that field.
    await page.locator('input[name=url]').press('Enter');
    await expect.poll(() => held.length).toBe(1);
    await expect(focusedId(page)).resolves.toBe('url');
    await expect(page.getByRole('status').textContent()).resolves.toBe(
      'Creating your account…',
    );
    const rateLimited = signUpCases.find(
      (event) =>
        event.type === 'xstate.error.actor.submitSignUp' &&
        event.error.failure.kind === 'rateLimited',
    );
    if (!rateLimited) throw new Error('no rate-limit case');
    await performSignUp(page, held, rateLimited);
    await expect.poll(() => focusedId(page)).toBe('error-summary');
    await expect(
      page.evaluate(() => document.activeElement?.getAttribute('data-testid')),
    ).resolves.toBe('error-rate-limit');
    await context.close();
  });
});
