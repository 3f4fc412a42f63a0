/**
 * Every transition of both machines at browser level: the model-based paths,
 * generated from the real machines (harness/model/planner.ts), walked
 * on the built page against the local API in each engine under test. After
 * every step the page must show what the model's state calls for, and
 * axe-core (WCAG 2.2 AA) must find nothing where each path ends.
 *
 * Covered transitions are those the machine takes on the path's events
 * (replayed with xstate's inspection events), counted once the page has
 * shown the model's state after every one of those events.
 *
 * It walks every state, so it runs where the sweeps run (ADR-0086): in
 * `npm run test:engines`, in Chromium, Firefox and WebKit. `npm test` judges
 * the same paths at machine and UI level (tests/machines/).
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import {
  consentMachine,
  type ConsentEvent,
} from '../../machines/consentMachine';
import { signUpMachine } from '../../machines/signUpMachine';
import { cookiesSent } from './support/engines/network';
import type { Engine } from '../../harness/engines';
import { useEngine } from './support/engines/launch';
import { enginesUnderTest } from './support/engines/underTest';
import {
  axeViolations,
  openSignUpPage,
  using,
  waitFor,
} from './support/engines/visit';
import { performConsent, performSignUp } from '../../harness/model/visitor';
import {
  consentModel,
  describeConsentInput,
} from '../../harness/model/consentModel';
import { describePath } from '../../harness/model/modelRun';
import {
  expectedConsentRun,
  expectedSignUpRun,
} from '../../harness/model/reference';
import { planPaths, replayPath } from '../../harness/model/planner';
import {
  signUpModel,
  type SignUpModelEvent,
} from '../../harness/model/signUpModel';
import {
  reportCoverage,
  type TransitionRecord,
} from '../../harness/model/transitions';
import {
  expectedConsentView,
  expectedSignUpView,
  readConsentView,
  readSignUpView,
} from '../../harness/model/views';
import {
  startTestServer,
  type TestServer,
} from '../../harness/page/testServer';

const LOGIN_COOKIES = [
  'VigilLogin',
  'Vigil_WELCOME_MESSAGE',
  'Vigil_FIRST_SIGNIN',
];

const signUpPaths = planPaths(signUpModel);
const consentPaths = planPaths(consentModel);

/**
 * The test that prints the coverage line of a machine in an engine and
 * fails unless every planned path passed and every transition was covered.
 * A path counts once the page passed it.
 */
function itCoversEveryTransition(
  machine: AnyStateMachine,
  covered: TransitionRecord[],
  planned: number,
  engine: Engine,
) {
  it('covers every transition of the machine', () => {
    const missing = reportCoverage(
      machine,
      covered,
      covered.length,
      `browser level, ${engine}`,
    );
    expect(covered).toHaveLength(planned);
    expect(missing).toEqual([]);
  });
}

describe.each(enginesUnderTest())('%s', (engine) => {
  const suite = useEngine(engine);

  describe('signUpMachine, browser level (built page, local API)', () => {
    const covered: TransitionRecord[] = [];

    for (const path of signUpPaths) {
      it(describePath(signUpModel, path), async () => {
        const succeeds =
          path.events.at(-1)?.type === 'xstate.done.actor.submitSignUp';
        // The model signs up one e-mail address: each success needs its
        // own service, with a database of its own.
        const api: TestServer = succeeds
          ? await startTestServer()
          : suite.server;
        try {
          await using(await openSignUpPage(suite, api.origin), async (page) => {
            const held = suite.network.holdSignUps();
            const chunks = suite.network.holdChunks();
            const model = expectedSignUpRun(
              path.input,
              path.events as SignUpModelEvent[],
            );
            await expect
              .poll(() => page.evaluate(readSignUpView))
              .toEqual(expectedSignUpView(model.initial));
            for (const [index, event] of (
              path.events as SignUpModelEvent[]
            ).entries()) {
              await performSignUp(page, held, event, chunks);
              const expected = model.after[index];
              if (!expected) throw new Error('no expectation for a step');
              if (expected.state === 'success') {
                // R4.3: the login cookies are set, then the browser goes to
                // `/`, which they reach (and which spends them: ADR-0045).
                await expect.poll(() => page.url()).toBe(`${api.origin}/`);
                const arrival = suite.network.exchanges.find(
                  (exchange) =>
                    exchange.method === 'GET' &&
                    exchange.url === `${api.origin}/`,
                );
                if (!arrival) throw new Error('no GET / reached the server');
                const sent = cookiesSent(arrival);
                expect([...sent.keys()]).toEqual(
                  expect.arrayContaining(LOGIN_COOKIES),
                );
                expect(sent.get('Vigil_WELCOME_MESSAGE')).toBe('1');
                expect(sent.get('Vigil_FIRST_SIGNIN')).toBe('1');
                await waitFor(
                  page,
                  () =>
                    document.querySelector('[data-testid="account-name"]') !==
                    null,
                );
              } else {
                await expect
                  .poll(() => page.evaluate(readSignUpView))
                  .toEqual(expectedSignUpView(expected));
              }
            }
            await expect(axeViolations(page)).resolves.toEqual([]);
            expect(page.uncaughtErrors?.() ?? []).toEqual([]);
          });
        } finally {
          if (api !== suite.server) await api.close();
        }
        covered.push(replayPath(signUpModel, path.input, path.events));
      });
    }

    itCoversEveryTransition(signUpMachine, covered, signUpPaths.length, engine);
  });

  describe('consentMachine, browser level (built page)', () => {
    const covered: TransitionRecord[] = [];

    for (const path of consentPaths) {
      it(describePath(consentModel, path, describeConsentInput), async () => {
        const { storedChoice, utmSource } = path.input;
        const storedCookie =
          storedChoice === 'accepted'
            ? '1'
            : storedChoice === 'rejected'
              ? '0'
              : null;
        const page = await openSignUpPage(suite, suite.server.origin, {
          query: utmSource ? `?utm_source=${utmSource}` : '',
          ...(storedCookie !== null && {
            storedConsent: storedCookie,
            storedRevision: path.input.storedRevision?.toString() ?? null,
          }),
          ...(path.input.gpcSignal && { gpc: 'property' as const }),
        });
        await using(page, async () => {
          const model = expectedConsentRun(
            path.input,
            path.events as ConsentEvent[],
          );
          await expect
            .poll(() => page.evaluate(readConsentView))
            .toEqual(expectedConsentView(model.initial, storedCookie));
          for (const [index, event] of path.events.entries()) {
            await performConsent(page, event);
            const expected = model.after[index];
            if (!expected) throw new Error('no expectation for a step');
            await expect
              .poll(() => page.evaluate(readConsentView))
              .toEqual(expectedConsentView(expected, storedCookie));
          }
          await expect(axeViolations(page)).resolves.toEqual([]);
          expect(page.uncaughtErrors?.() ?? []).toEqual([]);
        });
        covered.push(replayPath(consentModel, path.input, path.events));
      });
    }

    itCoversEveryTransition(
      consentMachine,
      covered,
      consentPaths.length,
      engine,
    );
  });
});
