/**
 * The questions the views ask the machines (the selectors exported beside
 * them), answered in every state the views meet; the request a valid
 * form sends; the actors the page must provide; and which failure an
 * error stands for.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { requestOf, verdictOf } from '../../common/signUpRules';
import { messages } from '../../common/validation';
import {
  consentMachine,
  selectChoice,
  selectModalOpen,
  selectSettingsShown,
  type ConsentChoice,
  type ConsentEvent,
} from '../../machines/consentMachine';
import {
  failureOf,
  SignUpRejection,
  type Failure,
} from '../../contract/signUp';
import {
  signUpMachine,
  type SignUpContext,
} from '../../machines/signUpMachine';
import {
  fieldError,
  selectFormLevelFailure,
  selectLocked,
  selectProgress,
} from '../../machines/signUpSelectors';
import { fillValidForm, startSignUp } from './support/signUpHarness';

describe('sign-up selectors (R4.1, R8.1 to R8.3, ADR-0043)', () => {
  it('editing: unlocked, no failure area', () => {
    const { actor } = startSignUp();
    const snapshot = actor.getSnapshot();
    expect(selectProgress(snapshot)).toBe('editing');
    expect(selectLocked(snapshot)).toBe(false);
    expect(selectFormLevelFailure(snapshot)).toBeNull();
  });

  it('sending: locked; signed up: still locked while the browser leaves', async () => {
    const harness = startSignUp();
    harness.fillValidForm();
    await harness.submit();
    expect(selectProgress(harness.actor.getSnapshot())).toBe('sending');
    expect(selectLocked(harness.actor.getSnapshot())).toBe(true);
    harness.requests[0]?.answer.resolve({ token: 't', sid: 's' });
    await harness.settle();
    const signedUp = harness.actor.getSnapshot();
    expect(selectProgress(signedUp)).toBe('signedUp');
    expect(selectLocked(signedUp)).toBe(true);
    // Final: the browser is leaving for `/`, nothing more happens here.
    expect(signedUp.status).toBe('done');
  });

  it.each([
    [{ kind: 'rateLimited' }, 'rateLimited', undefined],
    [{ kind: 'emailInUse' }, 'emailInUse', undefined],
    [{ kind: 'general', reason: 'refused' }, 'general', undefined],
    [{ kind: 'invalidName' }, null, messages.nameRefused],
  ] as [Failure, string | null, string | undefined][])(
    'a %o failure shows in area %s, at the name field: %s',
    async (failure, area, nameError) => {
      const harness = startSignUp();
      harness.fillValidForm();
      await harness.submit();
      harness.requests[0]?.answer.reject(new SignUpRejection(failure));
      await harness.settle();
      const snapshot = harness.actor.getSnapshot();
      expect(selectProgress(snapshot)).toBe('editing');
      expect(selectLocked(snapshot)).toBe(false);
      expect(selectFormLevelFailure(snapshot)).toBe(area);
      expect(fieldError(snapshot.context.errors, 'name')).toBe(nameError);
    },
  );

  it('the newsletter box is never in error; other fields read their message', () => {
    const errors = { tos: messages.tosRequired, captcha: 'c' };
    expect(fieldError(errors, 'newsletter')).toBeUndefined();
    expect(fieldError(errors, 'tos')).toBe(messages.tosRequired);
    expect(fieldError(errors, 'captcha')).toBe('c');
    expect(fieldError(errors, 'email')).toBeUndefined();
  });
});

describe('requestOf: the request a valid form sends (R3.1, R4.6)', () => {
  const context = (values: Partial<SignUpContext['values']>, token = 'tok') =>
    ({
      values: {
        name: ' Ada ',
        email: ' ada@example.com ',
        url: ' example.com ',
        newsletter: true,
        tos: true,
        ...values,
      },
      captchaToken: token,
      errors: {},
      utmCampaign: undefined,
      accepted: null,
    }) satisfies SignUpContext;

  it('requestOf: trimmed name and e-mail, https:// added (R5.5), no campaign unless kept', () => {
    expect(requestOf(context({}), {})).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
      captchaToken: 'tok',
      newsletter: true,
      url: 'https://example.com',
    });
    expect(
      requestOf({ ...context({}), utmCampaign: 'spring' }, {})?.utmCampaign,
    ).toBe('spring');
  });

  it('requestOf: nothing to send while any error stands or without a token (R4.6)', () => {
    expect(requestOf(context({}), { name: messages.nameRequired })).toBeNull();
    expect(requestOf(context({}, ''), {})).toBeNull();
    expect(requestOf(context({ url: 'localhost' }), {})).toBeNull();
  });
});

describe('consent selectors (R4.7, R4.10)', () => {
  const paths: [string, ConsentChoice, ConsentEvent[]][] = [
    ['unset', 'unset', []],
    ['unset', 'unset', [{ type: 'settings.open' }]],
    ['1', 'accepted', []],
    ['0', 'rejected', [{ type: 'settings.open' }]],
    ['unset', 'accepted', [{ type: 'consent.accept' }]],
  ];
  it.each(paths)(
    'stored %s then %o: the choice, the modal and the settings link agree with the state',
    (stored, expected, events) => {
      const storedChoice =
        stored === '1' ? 'accepted' : stored === '0' ? 'rejected' : 'unset';
      const actor = createActor(consentMachine, {
        input: {
          storedChoice,
          storedRevision: 1,
          revision: 1,
          utmSource: 'google',
          gpcSignal: false,
        },
      }).start();
      for (const event of events) actor.send(event);
      const snapshot = actor.getSnapshot();
      const inState = (['accepted', 'rejected', 'unset'] as const).find(
        (choice) => snapshot.matches(choice),
      );
      expect(inState).toBe(expected);
      expect(selectChoice(snapshot)).toBe(expected);
      expect(selectModalOpen(snapshot)).toBe(
        snapshot.matches({ [inState ?? 'unset']: 'open' }),
      );
      expect(selectSettingsShown(snapshot)).toBe(inState !== 'unset');
    },
  );
});

describe('the actors the page provides', () => {
  /** The error each actor failed with, in order, after a valid form is submitted. */
  async function actorErrors(machine: typeof signUpMachine) {
    const errors: string[] = [];
    const actor = createActor(machine, {
      input: {},
      inspect: (event) => {
        if (
          event.type === '@xstate.event' &&
          event.event.type.startsWith('xstate.error.actor.')
        ) {
          errors.push(String((event.event as { error?: unknown }).error));
        }
      },
    }).start();
    fillValidForm(actor, 'token');
    actor.send({ type: 'submit' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    return errors;
  }

  it('fail, until provided, with an error naming the actor', async () => {
    await expect(actorErrors(signUpMachine)).resolves.toEqual([
      'Error: checkForm was not provided',
    ]);
    const checked = signUpMachine.provide({
      actors: { checkForm: fromPromise(async ({ input }) => verdictOf(input)) },
    });
    await expect(actorErrors(checked)).resolves.toEqual([
      'Error: submitSignUp was not provided',
    ]);
  });
});

describe('failureOf: which failure a sign-up error stands for (R8.1 to R8.3)', () => {
  const unexpected: Failure = { kind: 'general', reason: 'unexpected' };
  // Another class of the same name: no answer the client decided on.
  class LookalikeRejection extends Error {
    constructor(readonly failure: Failure) {
      super('sign-up failed');
      this.name = 'SignUpRejection';
    }
  }

  it.each<[string, unknown, Failure]>([
    [
      "the contract's rejection",
      new SignUpRejection({ kind: 'rateLimited' }),
      { kind: 'rateLimited' },
    ],
    [
      'a look-alike class of the same name',
      new LookalikeRejection({ kind: 'emailInUse' }),
      unexpected,
    ],
    [
      'an error of that name without a failure',
      Object.assign(new Error('x'), { name: 'SignUpRejection' }),
      unexpected,
    ],
    [
      'an error of another name that carries a failure',
      Object.assign(new TypeError('x'), { failure: { kind: 'invalidName' } }),
      unexpected,
    ],
    [
      'an object shaped like a rejection that is no error',
      { name: 'SignUpRejection', failure: { kind: 'invalidName' } },
      unexpected,
    ],
    ['null', null, unexpected],
    ['a string', 'SignUpRejection', unexpected],
  ])('%s', (_, error, failure) => {
    expect(failureOf(error)).toEqual(failure);
  });
});
