/**
 * Model-based tests, machine level: paths generated from the real machines
 * (harness/model/planner.ts) run on a live actor of each machine with
 * its effects recorded; after every step the actor's state must be the one
 * the hand-written reference (harness/model/reference.ts, from
 * docs/requirements.md and docs/adr/, never from the machines)
 * expects, and the effects must be the ones its tables name. Every
 * transition the machines define must be covered.
 */
import { describe, expect, it } from 'vitest';
import { createActor, type AnyMachineSnapshot } from 'xstate';
import {
  consentMachine,
  type ConsentContext,
  type ConsentEvent,
  type ConsentInput,
  type ConsentSignal,
  type RecordedChoice,
  type StoredChoice,
} from '../../machines/consentMachine';
import {
  signUpMachine,
  type SignUpContext,
} from '../../machines/signUpMachine';
import { checkHostName } from '../../common/domainName';
import { startSignUp } from './support/signUpHarness';
import {
  consentModel,
  describeConsentInput,
} from '../../harness/model/consentModel';
import { describePath, stateLabel } from '../../harness/model/modelRun';
import {
  CONSENT_STATES,
  ConsentReference,
  SIGN_UP_STATES,
  expectedSignUpRun,
  type ConsentExpectation,
  type SignUpExpectation,
  type SignUpState,
} from '../../harness/model/reference';
import { planPaths } from '../../harness/model/planner';
import {
  MODEL_SESSION,
  signUpModel,
  type SignUpModelEvent,
} from '../../harness/model/signUpModel';
import {
  recordTransitions,
  reportCoverage,
  type TransitionRecord,
} from '../../harness/model/transitions';

/** What the reference judges of a sign-up: its fields with errors sorted. */
const judged = (expected: SignUpExpectation) => ({
  ...expected,
  errors: Object.keys(expected.errors).sort(),
});

/** The same of the live actor. */
function signUpView(snapshot: AnyMachineSnapshot) {
  const context = snapshot.context as SignUpContext;
  return {
    state: stateLabel(snapshot.value) as SignUpState,
    errors: Object.keys(context.errors).sort(),
    values: context.values,
    captcha: context.captchaToken !== null,
  };
}

/** The consent as the page would show it, read from the live actor. */
function consentView(snapshot: AnyMachineSnapshot): ConsentExpectation {
  const context = snapshot.context as ConsentContext;
  return {
    state:
      (['accepted', 'rejected', 'unset'] as const).find((choice) =>
        snapshot.matches(choice),
      ) ?? 'unset',
    modalOpen: snapshot.hasTag('modal'),
    bySignal: context.choiceSource === 'gpc',
  };
}

describe('signUpMachine, machine level', () => {
  const paths = planPaths(signUpModel);
  const covered: TransitionRecord[] = [];

  for (const path of paths) {
    it(describePath(signUpModel, path), async () => {
      const { record, inspect } = recordTransitions(signUpMachine.id);
      covered.push(record);
      const harness = startSignUp(path.input, inspect, { rules: 'held' });
      const { actor, requests, cookies } = harness;
      const expectedRun = expectedSignUpRun(
        path.input,
        path.events as SignUpModelEvent[],
      );
      expect(signUpView(actor.getSnapshot())).toEqual(
        judged(expectedRun.initial),
      );

      let outcomes = 0;
      for (const [index, step] of (
        path.events as SignUpModelEvent[]
      ).entries()) {
        const before = requests.length;
        if (step.type === 'rules.loaded') {
          harness.rulesLoads.at(-1)?.resolve();
        } else if (step.type === 'rules.offline') {
          harness.rulesLoads.at(-1)?.reject(new TypeError('Failed to fetch'));
        } else if (step.type === 'hostRule.loaded') {
          harness.hostRuleLoads.at(-1)?.resolve(checkHostName);
        } else if (step.type === 'hostRule.offline') {
          harness.hostRuleLoads
            .at(-1)
            ?.reject(new TypeError('Failed to fetch'));
        } else if (step.type === 'xstate.done.actor.submitSignUp') {
          requests.at(-1)?.answer.resolve(step.output);
          outcomes += 1;
        } else if (step.type === 'xstate.error.actor.submitSignUp') {
          requests.at(-1)?.answer.reject(step.error);
          outcomes += 1;
        } else {
          actor.send(step);
        }
        await new Promise((resolve) => setTimeout(resolve, 0));
        const expected = expectedRun.after[index];
        const sent = expectedRun.sent[index];
        if (!expected) throw new Error('the reference has no step');
        const snapshot = actor.getSnapshot();
        expect(signUpView(snapshot), `after step ${index + 1}`).toEqual(
          judged(expected),
        );
        const row = SIGN_UP_STATES[expected.state];

        // R4.6: one request per submit that passes validation, none while
        // a client-side error exists; a submit that waited for a chunk
        // sends when it arrives.
        expect(requests.length - before).toBe(sent ? 1 : 0);
        // R4.1, ADR-0020, ADR-0058, ADR-0071: the controls locked, as the table
        // says.
        expect(snapshot.hasTag('locked')).toBe(row.locked);
        // R4.2: the captcha is reset whatever the outcome.
        expect(harness.captchaResets).toBe(outcomes);
        // R4.3: login cookies from the token and sid, then `/`.
        expect(cookies).toEqual(row.writesLoginCookies ? [MODEL_SESSION] : []);
        expect(harness.navigations).toBe(row.writesLoginCookies ? 1 : 0);
      }
    });
  }

  it('covers every transition the machine defines', () => {
    expect(
      reportCoverage(signUpMachine, covered, paths.length, 'machine level'),
    ).toEqual([]);
  });
});

describe('consentMachine, machine level', () => {
  const paths = planPaths(consentModel);
  const covered: TransitionRecord[] = [];

  for (const path of paths) {
    it(describePath(consentModel, path, describeConsentInput), () => {
      const { record, inspect } = recordTransitions(consentMachine.id);
      covered.push(record);
      const input: ConsentInput = path.input;
      const storedCookie =
        input.storedChoice === 'accepted'
          ? '1'
          : input.storedChoice === 'rejected'
            ? '0'
            : null;
      let cookie: string | null = storedCookie;
      let tagLoaded = false;
      let tagLoads = 0;
      let cookieDeletions = 0;
      // ADR-0066: the last consent update the ad networks heard; none at start
      // (the page pushed the default before the machine ran).
      let signal: ConsentSignal | undefined;
      let choices = 0;
      let signalledBeforeLoad = true;
      // ADR-0068: one record per choice, naming where it was made.
      const records: RecordedChoice[] = [];
      const expectedRecords: RecordedChoice[] = [];
      const actor = createActor(
        consentMachine.provide({
          actions: {
            storeChoice: (_, choice: StoredChoice) => {
              cookie = choice === 'accepted' ? '1' : '0';
            },
            signalConsent: (_, given: ConsentSignal) => {
              signal = given;
            },
            recordChoice: (_, recorded: RecordedChoice) => {
              records.push(recorded);
            },
            loadTag: () => {
              // Loaded after an update only if that update granted.
              if (signal === 'denied') signalledBeforeLoad = false;
              tagLoads += tagLoaded ? 0 : 1;
              tagLoaded = true;
            },
            removeTag: () => {
              tagLoaded = false;
            },
            deleteTagCookies: () => {
              cookieDeletions += 1;
            },
          },
        }),
        { input, inspect },
      ).start();
      const reference = new ConsentReference(input);
      const check = (step: string) => {
        const expected = reference.expectation();
        expect(consentView(actor.getSnapshot()), step).toEqual(expected);
        const row = CONSENT_STATES[expected.state];
        // R4.8, R4.9: accept → cookie 1 and the tag; reject → cookie 0,
        // no tag, and its cookies deleted (ADR-0033). ADR-0073: a rejection the
        // browser's signal made writes no cookie; a start keeps the stored
        // one.
        expect(tagLoaded).toBe(row.tag);
        if (choices > 0) expect(cookie).toBe(row.cookie);
        else expect(cookie).toBe(storedCookie);
        if (expected.state === 'rejected') {
          expect(cookieDeletions).toBeGreaterThan(0);
        }
        // ADR-0066: after a choice, the networks' last update says it; with
        // none made on this page, nothing was updated.
        if (choices > 0) {
          expect(signal).toBe(
            expected.state === 'accepted' ? 'granted' : 'denied',
          );
        } else expect(signal).toBeUndefined();
        expect(signalledBeforeLoad).toBe(true);
      };
      check('at the start');
      path.events.forEach((event, index) => {
        actor.send(event as Parameters<typeof actor.send>[0]);
        const made = reference.step(event.type as ConsentEvent['type']);
        if (made) {
          choices += 1;
          expectedRecords.push({ choice: made.choice, source: made.where });
        }
        // ADR-0068: one record per choice, naming where it was made.
        expect(records).toEqual(expectedRecords);
        check(`after step ${index + 1}`);
      });
      // Never twice for one acceptance, whatever the path.
      expect(tagLoads).toBeLessThanOrEqual(
        path.events.filter((e) => e.type === 'consent.accept').length + 1,
      );
    });
  }

  it('covers every transition the machine defines', () => {
    expect(
      reportCoverage(consentMachine, covered, paths.length, 'machine level'),
    ).toEqual([]);
  });
});
