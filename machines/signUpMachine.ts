/**
 * The sign-up submission machine (R4.1 to R4.6 in docs/requirements.md),
 * in the five states the product's card draws:
 *
 * idle ──submit──▶ validating ──done [formHasErrors]──▶ idle
 *                     │  └──done──▶ submitting ──done──▶ success (final)
 *                     └──error──▶ failure.general └──error──▶ failure.<kind>
 * failure ──submit──▶ validating
 *
 * `checkForm` returns the rules' verdict, computed once: the field errors,
 * or the form to send (R5, R4.6); fetching the rules' code is its business
 * (ADR-0058, ADR-0071). Effects are named actors and actions
 * that the page provides (src/app.tsx) and tests replace.
 */
import { assertEvent, assign, emit, fromPromise, setup } from 'xstate';
import {
  failureOf,
  type Failure,
  type Session,
  type SignUpRequest,
} from '../contract/signUp';
import type {
  AcceptedForm,
  FieldErrors,
  FormToCheck,
  FormVerdict,
  SignUpContext,
  SignUpMachineTypes,
  SignUpValues,
} from './signUpTypes';
export type * from './signUpTypes';

const EMPTY_VALUES: SignUpValues = {
  name: '',
  email: '',
  url: '',
  newsletter: false,
  tos: false,
};

function withoutError(errors: FieldErrors, field: keyof FieldErrors) {
  const { [field]: _cleared, ...rest } = errors;
  return rest;
}

/** The form `validating` let through; `submitting` follows only one. */
function acceptedOf({ accepted }: SignUpContext): AcceptedForm {
  if (!accepted) throw new Error('no accepted form: submitting needs one');
  return accepted;
}

/** An actor the page provides (src/app.tsx); until then it fails, named. */
const unprovided = <TOutput, TInput>(name: string) =>
  fromPromise<TOutput, TInput>(async () => {
    throw new Error(`${name} was not provided`);
  });

/** `idle` and `failure`: the visitor edits the form. */
const editing = {
  'field.change': { actions: ['changeField', 'prefetchRules'] },
  'checkbox.change': { actions: 'changeCheckbox' },
  'captcha.solve': { actions: 'storeCaptchaToken' },
  'captcha.expire': { actions: 'forgetCaptchaToken' },
  submit: { target: 'validating' },
} as const;

/** The verdict `checkForm` returned, for the actions and guards it drives. */
const verdict = ({ event }: { event: { output: FormVerdict } }) => event.output;
/** The failure the sign-up actor's error stands for. */
const failure = ({ event }: { event: { error: unknown } }) =>
  failureOf(event.error);

/** R7.4, ADR-0037: each way out of `submitting` into `failure` is reported. */
const reportSubmitFailure = { type: 'reportFailure', params: failure } as const;

export const signUpMachine = setup({
  types: {} as SignUpMachineTypes,
  actors: {
    checkForm: unprovided<FormVerdict, FormToCheck>('checkForm'),
    submitSignUp: unprovided<Session, SignUpRequest>('submitSignUp'),
  },
  actions: {
    changeField: assign(({ context, event }) => {
      assertEvent(event, 'field.change');
      return {
        values: { ...context.values, [event.field]: event.value },
        errors: withoutError(context.errors, event.field),
      };
    }),
    changeCheckbox: assign(({ context, event }) => {
      assertEvent(event, 'checkbox.change');
      return {
        values: { ...context.values, [event.field]: event.checked },
        errors:
          event.field === 'tos'
            ? withoutError(context.errors, 'tos')
            : context.errors,
      };
    }),
    storeCaptchaToken: assign(({ context, event }) => {
      assertEvent(event, 'captcha.solve');
      return {
        captchaToken: event.token,
        errors: withoutError(context.errors, 'captcha'),
      };
    }),
    forgetCaptchaToken: assign({ captchaToken: null }),
    // R4.4: a submit clears every earlier error and verdict.
    startOver: assign({ errors: {}, accepted: null }),
    // R5, R4.6: every client-side rule's first message, at once.
    showFormErrors: assign((_, { errors }: FormVerdict) => ({ errors })),
    acceptForm: assign((_, { accepted }: FormVerdict) => ({ accepted })),
    // R8.2: a refused name marks the name field with its help text.
    markNameRefused: assign(({ context }) => ({
      errors: { name: acceptedOf(context).nameRefused },
    })),
    // Heard by the view (src/signUp/views/SignUpForm.tsx).
    resetCaptcha: emit({ type: 'captcha.reset' } as const),
    announceErrors: emit({ type: 'errors.shown' } as const),
    // The page's (src/app.tsx): it fetches the chunks a submit will need
    // (ADR-0058, ADR-0071), writes the login cookies, goes to `/`, reports
    // (ADR-0037).
    prefetchRules: () => {},
    setLoginCookies: (_, _session: Session) => {},
    navigateHome: () => {},
    reportFailure: (_, _failure: Failure) => {},
  },
  guards: {
    // R4.6: nothing is sent while any client-side error stands.
    formHasErrors: (_, verdict: FormVerdict) => verdict.accepted === null,
    // R8.1, R8.2, ADR-0043: the failures told apart; any other is general
    // (R8.3).
    isRateLimited: (_, { kind }: Failure) => kind === 'rateLimited',
    isNameRefused: (_, { kind }: Failure) => kind === 'invalidName',
    isEmailInUse: (_, { kind }: Failure) => kind === 'emailInUse',
    // ADR-0022: only typing in the refused name ends that failure.
    isNameEdit: ({ event }) => {
      assertEvent(event, 'field.change');
      return event.field === 'name';
    },
  },
}).createMachine({
  id: 'signUp',
  context: ({ input }) => ({
    values: { ...EMPTY_VALUES, ...input.values },
    captchaToken: null,
    errors: {},
    utmCampaign: input.utmCampaign,
    accepted: null,
  }),
  initial: 'idle',
  states: {
    idle: { on: editing },
    // ADR-0058, ADR-0071: a submit waits here for the rules' chunks; without
    // them nothing is judged or sent (`failure.general`); without the host rule
    // the site URL says it could not be checked (ADR-0059): errors.
    validating: {
      tags: ['locked', 'sending'],
      entry: 'startOver',
      invoke: {
        id: 'checkForm',
        src: 'checkForm',
        input: ({ context: { values, captchaToken, utmCampaign } }) => ({
          values,
          captchaToken,
          utmCampaign,
        }),
        onDone: [
          {
            guard: { type: 'formHasErrors', params: verdict },
            target: 'idle',
            actions: [
              { type: 'showFormErrors', params: verdict },
              'announceErrors',
            ],
          },
          {
            target: 'submitting',
            actions: { type: 'acceptForm', params: verdict },
          },
        ],
        onError: { target: 'failure.general' },
      },
    },
    submitting: {
      tags: ['locked', 'sending'],
      invoke: {
        id: 'submitSignUp',
        src: 'submitSignUp',
        input: ({ context }) => acceptedOf(context).request,
        onDone: {
          target: 'success',
          actions: [
            { type: 'setLoginCookies', params: ({ event }) => event.output },
            'navigateHome',
          ],
        },
        // R8.1 to R8.3, ADR-0043: the failure's kind picks the substate.
        onError: [
          {
            guard: { type: 'isRateLimited', params: failure },
            target: 'failure.rateLimited',
            actions: reportSubmitFailure,
          },
          {
            guard: { type: 'isNameRefused', params: failure },
            target: 'failure.invalidName',
            actions: reportSubmitFailure,
          },
          {
            guard: { type: 'isEmailInUse', params: failure },
            target: 'failure.emailInUse',
            actions: reportSubmitFailure,
          },
          { target: 'failure.general', actions: reportSubmitFailure },
        ],
      },
      // R4.2: the captcha is reset whatever the outcome; a token is good for
      // one verification only (ADR-0023).
      exit: ['resetCaptcha', 'forgetCaptchaToken'],
    },
    // The browser is leaving for `/`: the form stays locked meanwhile.
    success: { type: 'final', tags: ['locked', 'signedUp'] },
    // R4.4: one error shows, the form is editable again, and the next
    // submit starts over; focus moves to the message (`announceErrors`).
    failure: {
      entry: 'announceErrors',
      on: editing,
      initial: 'general',
      states: {
        rateLimited: {}, // R8.1: the rate limit's own area
        // R8.2: the name field says why; ADR-0022: typing in it ends the
        // failure.
        invalidName: {
          entry: 'markNameRefused',
          on: {
            'field.change': [
              {
                guard: 'isNameEdit',
                target: '#signUp.idle',
                actions: 'changeField',
              },
              { actions: 'changeField' },
            ],
          },
        },
        emailInUse: {}, // ADR-0043: the general area, with a message of its own
        general: {}, // R8.3: the general area
      },
    },
  },
});
