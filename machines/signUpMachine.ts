/**
 * The sign-up submission machine (spec section 4, "Submission").
 *
 * idle ──submit──▶ validating ──(client errors)──▶ idle
 *                       └──(no errors)──▶ submitting ──done──▶ success (final)
 *                                              └──error──▶ failure ──submit──▶ validating
 *
 * Effects reach it only as named actions and actors, which the page wires in
 * (`src/main.tsx`) and tests replace with `machine.provide(...)`:
 * `submitSignUp` (the HTTP call), `setLoginCookies`, `navigateHome`; the
 * captcha widget, which lives in the view, hears `captcha.reset` emitted by
 * the `resetCaptcha` action. No React or DOM import here.
 */
import { assertEvent, assign, emit, fromPromise, setup } from 'xstate';
import {
  messages,
  validateSignUp,
  checkSiteUrl,
  type FieldErrors,
} from '../src/validation';

export type TextField = 'name' | 'email' | 'url';
export type CheckboxField = 'newsletter' | 'tos';

export interface SignUpValues {
  name: string;
  email: string;
  url: string;
  newsletter: boolean;
  tos: boolean;
}

/** What the page sends (spec section 3); the client form-encodes it. */
export interface SignUpRequest {
  name: string;
  email: string;
  captchaToken: string;
  newsletter: boolean;
  /** With its protocol (spec section 5). */
  url?: string;
  utmCampaign?: string;
}

/** `one_time_auth` of a successful answer (spec section 3). */
export interface Session {
  token: string;
  sid: string;
}

/** Why a failure is "general": for error reporting, never shown apart. */
export type GeneralFailureReason =
  'network' | 'timeout' | 'malformed' | 'refused' | 'unexpected';

/** The one error a failed request shows (spec section 8, "Server"). */
export type Failure =
  | { kind: 'rateLimited' }
  | { kind: 'invalidName' }
  | { kind: 'general'; reason: GeneralFailureReason };

/**
 * How `submitSignUp` rejects: with the failure it decided on. Anything
 * else it might throw is treated as a general failure by {@link failureOf}.
 */
export class SignUpRejection extends Error {
  constructor(readonly failure: Failure) {
    super(`sign-up failed: ${failure.kind}`);
    this.name = 'SignUpRejection';
  }
}

/** The failure an error from `submitSignUp` stands for. */
export function failureOf(error: unknown): Failure {
  return error instanceof SignUpRejection
    ? error.failure
    : { kind: 'general', reason: 'unexpected' };
}

export interface SignUpInput {
  values?: Partial<SignUpValues>;
  utmCampaign?: string;
}

export interface SignUpContext {
  values: SignUpValues;
  captchaToken: string | null;
  /** Field → message; client-side errors, or the server's refusal of the name. */
  errors: FieldErrors;
  /** Set only in `failure`: which one error that state shows. */
  failure: Failure | null;
  utmCampaign: string | undefined;
}

export type SignUpEvent =
  | { type: 'field.change'; field: TextField; value: string }
  | { type: 'checkbox.change'; field: CheckboxField; checked: boolean }
  | { type: 'captcha.solve'; token: string }
  | { type: 'captcha.expire' }
  | { type: 'submit' };

/**
 * Told to the view: the captcha's token is spent (the widget must reset);
 * errors were just shown (focus moves to them, GOV.UK error summary).
 */
export type SignUpEmitted =
  { type: 'captcha.reset' } | { type: 'errors.shown' };

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

/** Shared by `idle` and `failure`: the visitor edits the form. */
const editing = {
  'field.change': { actions: 'changeField' },
  'checkbox.change': { actions: 'changeCheckbox' },
  'captcha.solve': { actions: 'storeCaptchaToken' },
  'captcha.expire': { actions: 'forgetCaptchaToken' },
  submit: { target: 'validating' },
} as const;

export const signUpMachine = setup({
  types: {
    context: {} as SignUpContext,
    events: {} as SignUpEvent,
    input: {} as SignUpInput,
    emitted: {} as SignUpEmitted,
    tags: 'locked',
  },
  actors: {
    // Replaced by the page with the real client (src/signUpClient.ts).
    submitSignUp: fromPromise<Session, SignUpRequest>(() =>
      // Stryker disable next-line StringLiteral: the machine reads no error's text (failureOf); this one is for a developer's debugger
      Promise.reject(new Error('submitSignUp was not provided')),
    ),
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
    validate: assign(({ context }) => ({
      errors: validateSignUp({
        ...context.values,
        captchaToken: context.captchaToken,
      }),
      failure: null,
    })),
    // Spec section 4: a failure clears every earlier error and shows one;
    // section 8: a refused name marks the name field with its help text.
    recordFailure: assign((_, failure: Failure) => ({
      failure,
      errors:
        failure.kind === 'invalidName' ? { name: messages.nameRefused } : {},
    })),
    clearFailure: assign({ failure: null }),
    // The view that owns the widget listens for this (src/views/SignUpForm.tsx).
    resetCaptcha: emit({ type: 'captcha.reset' } as const),
    announceErrors: emit({ type: 'errors.shown' } as const),
    // Implemented by the page with the cookie module (src/cookies.ts).
    setLoginCookies: (_, _session: Session) => {},
    // Implemented by the page: a full navigation to `/`.
    navigateHome: () => {},
    // Implemented by the page (src/errorReporting.ts): spec section 7.
    reportFailure: (_, _failure: Failure) => {},
  },
  guards: {
    hasFieldErrors: ({ context }) => Object.keys(context.errors).length > 0,
    isNameEditAfterRefusal: ({ context, event }) => {
      assertEvent(event, 'field.change');
      // Stryker disable next-line OptionalChaining: evaluated only in `failure`, whose context always holds the failure
      return event.field === 'name' && context.failure?.kind === 'invalidName';
    },
  },
}).createMachine({
  id: 'signUp',
  context: ({ input }) => ({
    values: { ...EMPTY_VALUES, ...input.values },
    captchaToken: null,
    errors: {},
    failure: null,
    utmCampaign: input.utmCampaign,
  }),
  initial: 'idle',
  states: {
    idle: {
      on: editing,
    },
    validating: {
      entry: 'validate',
      always: [
        { guard: 'hasFieldErrors', target: 'idle', actions: 'announceErrors' },
        { target: 'submitting' },
      ],
    },
    submitting: {
      tags: 'locked',
      invoke: {
        id: 'submitSignUp',
        src: 'submitSignUp',
        input: ({ context }): SignUpRequest => {
          const url = checkSiteUrl(context.values.url);
          return {
            name: context.values.name.trim(),
            email: context.values.email.trim(),
            // `validating` let us in only with a token and a valid URL.
            // Stryker disable next-line StringLiteral: unreachable, `validating` lets no request through without a token
            captchaToken: context.captchaToken ?? '',
            newsletter: context.values.newsletter,
            ...(url.ok && { url: url.url }),
            ...(context.utmCampaign && { utmCampaign: context.utmCampaign }),
          };
        },
        onDone: {
          target: 'success',
          actions: [
            {
              type: 'setLoginCookies',
              params: ({ event }) => event.output,
            },
            'navigateHome',
          ],
        },
        onError: {
          target: 'failure',
          actions: [
            {
              type: 'recordFailure',
              params: ({ event }) => failureOf(event.error),
            },
            'announceErrors',
            {
              type: 'reportFailure',
              params: ({ event }) => failureOf(event.error),
            },
          ],
        },
      },
      // Spec section 4: the captcha is reset whatever the outcome; a token
      // is good for one verification only.
      exit: ['resetCaptcha', 'forgetCaptchaToken'],
    },
    // The browser is leaving for `/`: the form stays locked meanwhile.
    success: { type: 'final', tags: 'locked' },
    failure: {
      on: {
        ...editing,
        'field.change': [
          {
            guard: 'isNameEditAfterRefusal',
            target: 'idle',
            actions: ['changeField', 'clearFailure'],
          },
          { actions: 'changeField' },
        ],
      },
    },
  },
});
