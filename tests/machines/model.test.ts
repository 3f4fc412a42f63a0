/**
 * Model-based tests, machine level: paths generated from the real machines
 * (tests/support/model/planner.ts) run on a live actor of each machine with
 * its effects recorded; after every step the actor's state and context must
 * equal what the machine definition computes, and the effects must be the
 * ones docs/requirements.md asks for. Every transition the machines define
 * must be covered.
 */
import { describe, expect, it } from 'vitest';
import { createActor, type AnyMachineSnapshot } from 'xstate';
import {
  consentMachine,
  type ConsentInput,
  type ConsentSignal,
  type RecordedChoice,
  type StoredChoice,
} from '../../machines/consentMachine';
import { signUpMachine } from '../../machines/signUpMachine';
import { startSignUp } from './support/signUpHarness';
import {
  consentModel,
  describeConsentInput,
} from '../support/model/consentModel';
import { describePath, modelSnapshots } from '../support/model/modelRun';
import { planPaths } from '../support/model/planner';
import {
  MODEL_SESSION,
  signUpModel,
  type SignUpModelEvent,
} from '../support/model/signUpModel';
import {
  recordTransitions,
  reportCoverage,
  type TransitionRecord,
} from '../support/model/transitions';

const stateOf = (snapshot: AnyMachineSnapshot) => ({
  value: snapshot.value,
  context: snapshot.context,
});

describe('signUpMachine, machine level', () => {
  const paths = planPaths(signUpModel);
  const covered: TransitionRecord[] = [];

  for (const path of paths) {
    it(describePath(signUpModel, path), async () => {
      const { record, inspect } = recordTransitions(signUpMachine.id);
      covered.push(record);
      const harness = startSignUp(path.input, inspect, { rules: 'held' });
      const { actor, requests, cookies } = harness;
      const model = modelSnapshots(signUpModel, path);
      expect(stateOf(actor.getSnapshot())).toEqual(stateOf(model.initial));

      let outcomes = 0;
      for (const [index, step] of (
        path.events as SignUpModelEvent[]
      ).entries()) {
        const before = requests.length;
        if (step.type === 'xstate.done.actor.loadRules') {
          harness.rulesLoads.at(-1)?.resolve(step.output);
        } else if (step.type === 'xstate.error.actor.loadRules') {
          harness.rulesLoads.at(-1)?.reject(step.error);
        } else if (step.type === 'xstate.done.actor.loadHostRule') {
          harness.hostRuleLoads.at(-1)?.resolve(step.output);
        } else if (step.type === 'xstate.error.actor.loadHostRule') {
          harness.hostRuleLoads.at(-1)?.reject(step.error);
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
        const expected = model.after[index];
        if (!expected) throw new Error('the model has no snapshot for a step');
        const snapshot = actor.getSnapshot();
        expect(stateOf(snapshot)).toEqual(stateOf(expected));

        // R4.6: one request per submit that passes validation,
        // none while a client-side error exists.
        // A submit that waited for a chunk sends when it arrives.
        const sends =
          step.type === 'submit' ||
          step.type === 'xstate.done.actor.loadRules' ||
          step.type === 'xstate.done.actor.loadHostRule';
        expect(requests.length - before).toBe(
          sends && expected.matches('submitting') ? 1 : 0,
        );
        // Inputs locked while the request runs, while a chunk is awaited
        // (D58, D71), and while leaving for `/`.
        expect(snapshot.hasTag('locked')).toBe(
          expected.matches('submitting') ||
            expected.matches('awaitingRules') ||
            expected.matches('awaitingHostRule') ||
            expected.matches('success'),
        );
        // The captcha is reset whatever the outcome.
        expect(harness.captchaResets).toBe(outcomes);
        // Success: login cookies from the token and sid, then `/`.
        const succeeded = expected.matches('success');
        expect(cookies).toEqual(succeeded ? [MODEL_SESSION] : []);
        expect(harness.navigations).toBe(succeeded ? 1 : 0);
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
      // D66: the last consent update the ad networks heard; none at start
      // (the page pushed the default before the machine ran).
      let signal: ConsentSignal | undefined;
      let choices = 0;
      let signalledBeforeLoad = true;
      // D68: one record per choice, naming where it was made.
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
      const model = modelSnapshots(consentModel, path);
      const snapshots = [model.initial, ...model.after];
      const check = (expected: AnyMachineSnapshot) => {
        const snapshot = actor.getSnapshot();
        expect(stateOf(snapshot)).toEqual(stateOf(expected));
        const accepted = expected.matches('accepted');
        const rejected = expected.matches('rejected');
        // R4.8, R4.9: accept → cookie 1 and the tag; reject → cookie 0,
        // no tag, and its cookies deleted (D33).
        expect(tagLoaded).toBe(accepted);
        // D73: a rejection the browser's signal made writes no cookie.
        const bySignal = choices === 0 && input.gpcSignal && rejected;
        if (accepted) expect(cookie).toBe('1');
        if (rejected) {
          expect(cookie).toBe(bySignal ? storedCookie : '0');
          expect(cookieDeletions).toBeGreaterThan(0);
        }
        // D66: after a choice, the networks' last update says it; with
        // none made on this page, nothing was updated.
        if (choices > 0) expect(signal).toBe(accepted ? 'granted' : 'denied');
        else expect(signal).toBeUndefined();
        expect(signalledBeforeLoad).toBe(true);
        expect(snapshot.hasTag('modal')).toBe(expected.hasTag('modal'));
      };
      check(snapshots[0] as AnyMachineSnapshot);
      path.events.forEach((event, index) => {
        const before = actor.getSnapshot();
        actor.send(event as Parameters<typeof actor.send>[0]);
        // A choice is an accept or a reject the modal took.
        if (
          before.hasTag('modal') &&
          (event.type === 'consent.accept' || event.type === 'consent.reject')
        ) {
          choices += 1;
          // The settings link opens the modal only once a choice stands.
          expectedRecords.push({
            choice: event.type === 'consent.accept' ? 'accepted' : 'rejected',
            source: before.matches('unset') ? 'modal' : 'settings',
          });
        }
        expect(records).toEqual(expectedRecords);
        check(snapshots[index + 1] as AnyMachineSnapshot);
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
