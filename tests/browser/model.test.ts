/**
 * Model-based tests, browser level: the shortest path to every state of
 * both machines, generated from the real machines, driven in Chromium on
 * the built page against the local server. Each step does what a visitor
 * does; the sign-up request goes to the local API for a success, and gets
 * the network's reply for each failure (Playwright `route`). After each
 * step the page must show what the model's state calls for.
 */
import { describe, expect, it } from 'vitest';
import type { EventObject } from 'xstate';
import type { ConsentInput } from '../../machines/consentMachine';
import { useChromiumAndServer } from '../support/browserSuite';
import {
  consentModel,
  describeConsentInput,
} from '../support/model/consentModel';
import { describePath, modelSnapshots } from '../support/model/modelRun';
import { planStatePaths, type ModelSpec } from '../support/model/planner';
import {
  holdSignUpRequests,
  performConsent,
  performSignUp,
} from '../support/model/browserDriver';
import {
  signUpModel,
  type SignUpModelEvent,
} from '../support/model/signUpModel';
import { definedStates, statesReached } from '../support/model/transitions';
import {
  expectedConsentView,
  expectedSignUpView,
  readConsentView,
  readSignUpView,
} from '../support/model/views';
import { openSignUpPage } from '../support/signUpPage';

const suite = useChromiumAndServer();

function reportStates<TInput>(
  name: string,
  spec: ModelSpec<TInput>,
  reached: Set<string>,
  paths: number,
) {
  const defined = definedStates(spec.machine);
  const missing = defined.filter((id) => !reached.has(id));
  console.log(
    `${name}: reached ${defined.length - missing.length} of ${defined.length} states in ${paths} paths (browser level)`,
  );
  expect(missing).toEqual([]);
}

describe('signUpMachine, browser level (Chromium, built page, local API)', () => {
  const paths = planStatePaths(signUpModel);
  const reached = new Set<string>();

  for (const path of paths) {
    it(describePath(signUpModel, path), async () => {
      const { context, page, pageErrors } = await openSignUpPage(
        suite.browser,
        suite.server.origin,
      );
      const held = await holdSignUpRequests(page);
      const model = modelSnapshots(signUpModel, path);
      await expect
        .poll(() => page.evaluate(readSignUpView))
        .toEqual(expectedSignUpView(model.initial));
      for (const [index, event] of (
        path.events as SignUpModelEvent[]
      ).entries()) {
        await performSignUp(page, held, event);
        const expected = model.after[index];
        if (!expected) throw new Error('the model has no snapshot for a step');
        if (expected.matches('success')) {
          await page.waitForURL(`${suite.server.origin}/`);
          const names = (await context.cookies()).map((c) => c.name);
          expect(names).toEqual(
            expect.arrayContaining([
              'VigilLogin',
              'Vigil_WELCOME_MESSAGE',
              'Vigil_FIRST_SIGNIN',
            ]),
          );
        } else {
          await expect
            .poll(() => page.evaluate(readSignUpView))
            .toEqual(expectedSignUpView(expected));
        }
      }
      expect(pageErrors).toEqual([]);
      for (const id of statesReached(
        signUpModel.replayLogic,
        path.input,
        path.events as EventObject[],
      )) {
        reached.add(id);
      }
      await context.close();
    });
  }

  it('reaches every state of the machine', () => {
    reportStates('signUpMachine', signUpModel, reached, paths.length);
  });
});

describe('consentMachine, browser level (Chromium, built page)', () => {
  const paths = planStatePaths(consentModel);
  const reached = new Set<string>();

  for (const path of paths) {
    it(describePath(consentModel, path, describeConsentInput), async () => {
      const input: ConsentInput = path.input;
      const storedCookie =
        input.storedChoice === 'accepted'
          ? '1'
          : input.storedChoice === 'rejected'
            ? '0'
            : null;
      const { context, page, pageErrors } = await openSignUpPage(
        suite.browser,
        suite.server.origin,
        {
          query: input.utmSource ? `?utm_source=${input.utmSource}` : '',
          ...(storedCookie !== null && { storedConsent: storedCookie }),
        },
      );
      const model = modelSnapshots(consentModel, path);
      await expect
        .poll(() => page.evaluate(readConsentView))
        .toEqual(expectedConsentView(model.initial, storedCookie));
      for (const [index, event] of path.events.entries()) {
        await performConsent(page, event);
        const expected = model.after[index];
        if (!expected) throw new Error('the model has no snapshot for a step');
        await expect
          .poll(() => page.evaluate(readConsentView))
          .toEqual(expectedConsentView(expected, storedCookie));
      }
      expect(pageErrors).toEqual([]);
      for (const id of statesReached(
        consentModel.replayLogic,
        path.input,
        path.events,
      )) {
        reached.add(id);
      }
      await context.close();
    });
  }

  it('reaches every state of the machine', () => {
    reportStates('consentMachine', consentModel, reached, paths.length);
  });
});
