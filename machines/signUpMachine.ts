/**
 * The sign-up submission machine (R4.1 to R4.6 in docs/requirements.md).
 *
 * idle ──submit──▶ validating ──(client errors)──▶ idle
 *                     │ └──(no errors)──▶ submitting ──done──▶ success (final)
 *                     │                        └──error──▶ failure ──submit──▶ validating
 *                     └──(host rule not loaded)──▶ awaitingHostRule ──done──▶ validating
 *                                                        └──error──▶ idle
 *
 * Effects reach it only as named actions and actors, which the page wires in
 * (`src/app.tsx`) and tests replace with `machine.provide(...)`:
 * `submitSignUp` (the HTTP call), `loadHostRule` and `prefetchHostRule`
 * (the chunk with the UTS #46 host rule, D58), `setLoginCookies`,
 * `navigateHome`, `reportFailure`, and the form's rules `checkForm`,
 * `checkFormWithoutHostRule` and `explainFailure`
 * (common/signUpRuleActions.ts); the captcha widget, which lives in the
 * view, hears `captcha.reset` emitted by the `resetCaptcha` action. It
 * imports only xstate and its contract (machines/signUpContract.ts), and
 * exports the selectors its views ask.
 */
import {
  assertEvent,
  assign,
  emit,
  fromPromise,
  setup,
  type SnapshotFrom,
} from 'xstate';
import {
  failureOf,
  type Failure,
  type Session,
  type SignUpRequest,
} from './signUpContract';

export type TextField = 'name' | 'email' | 'url';
export type CheckboxField = 'newsletter' | 'tos';
/** The fields that can carry an error message; `captcha` is the captcha notice. */
export type ErrorField = 'name' | 'email' | 'url' | 'tos' | 'captcha';

/** Field → the message shown for it. */
export type FieldErrors = Partial<Record<ErrorField, string>>;

/**
 * Why the host rule refuses a host: `invisible` is a zero-width joiner or
 * non-joiner outside the contexts IDNA allows it in; `format` covers
 * everything but that, IP addresses and localhost.
 */
export type HostProblem = 'format' | 'ip' | 'local' | 'invisible';

/** A host's verdict: its ASCII form, lower case, without a trailing dot. */
export type HostCheck =
  { ok: true; ascii: string } | { ok: false; problem: HostProblem };

/**
 * A host rule: the host as typed (without port, brackets or user info) →
 * its verdict. The machine holds the UTS #46 one (common/domainName.ts)
 * once its chunk has loaded (D58).
 */
export type HostRule = (host: string) => HostCheck;

export interface SignUpValues {
  name: string;
  email: string;
  url: string;
  newsletter: boolean;
  tos: boolean;
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
  /** What `submitting` sends: set by `checkForm` when the form has no errors. */
  request: SignUpRequest | null;
  /** The UTS #46 host rule (common/domainName.ts), once its chunk has loaded. */
  hostRule: HostRule | null;
  /** Set by `checkForm`: the site URL's host needs `hostRule`, not loaded yet. */
  awaitsHostRule: boolean;
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
  'field.change': { actions: ['changeField', 'prefetchHostRule'] },
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
    tags: {} as 'locked' | 'sending' | 'signedUp',
  },
  actors: {
    // Replaced by the page with the real client (src/signUpClient.ts).
    submitSignUp: fromPromise<Session, SignUpRequest>(() =>
      // Stryker disable next-line StringLiteral: the machine reads no error's text (failureOf); this one is for a developer's debugger
      Promise.reject(new Error('submitSignUp was not provided')),
    ),
    // Replaced by the page with the chunk's loader (src/hostRuleLoader.ts).
    loadHostRule: fromPromise<HostRule>(() =>
      // Stryker disable next-line StringLiteral: the machine reads no error's text; this one is for a developer's debugger
      Promise.reject(new Error('loadHostRule was not provided')),
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
    // Provided by the page and the tests with the form's rules
    // (common/signUpRuleActions.ts): assigns `errors` for the values and the
    // captcha token, and `request` when there are none.
    checkForm: () => {
      throw new Error('checkForm was not provided');
    },
    // Provided with the rules: `checkForm` once the host rule could not be
    // loaded, the site URL marked as not checked (D59).
    checkFormWithoutHostRule: () => {
      throw new Error('checkFormWithoutHostRule was not provided');
    },
    storeHostRule: assign((_, { hostRule }: { hostRule: HostRule }) => ({
      hostRule,
    })),
    // Implemented by the page: starts loading the host rule's chunk when
    // the site URL needs it, so that a submit rarely waits (D58).
    prefetchHostRule: () => {},
    // R4.4: a failure clears every earlier error and shows one.
    recordFailure: assign((_, failure: Failure) => ({
      failure,
      errors: {},
    })),
    // Provided with the rules (common/signUpRuleActions.ts): R8.2, a refused
    // name marks the name field with its help text.
    explainFailure: (_, _failure: Failure) => {},
    clearFailure: assign({ failure: null }),
    // The view that owns the widget listens for this (src/views/SignUpForm.tsx).
    resetCaptcha: emit({ type: 'captcha.reset' } as const),
    announceErrors: emit({ type: 'errors.shown' } as const),
    // Implemented by the page with the cookie module (src/cookies.ts).
    setLoginCookies: (_, _session: Session) => {},
    // Implemented by the page: a full navigation to `/`.
    navigateHome: () => {},
    // Implemented by the page (src/errorReporting.ts): R7.4, D37.
    reportFailure: (_, _failure: Failure) => {},
  },
  guards: {
    awaitsHostRule: ({ context }) => context.awaitsHostRule,
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
    request: null,
    hostRule: null,
    awaitsHostRule: false,
  }),
  initial: 'idle',
  states: {
    idle: {
      on: editing,
    },
    validating: {
      entry: ['clearFailure', 'checkForm'],
      always: [
        { guard: 'awaitsHostRule', target: 'awaitingHostRule' },
        { guard: 'hasFieldErrors', target: 'idle', actions: 'announceErrors' },
        { target: 'submitting' },
      ],
    },
    // D58, D59: a host with a non-ASCII character or an `xn--` label waits
    // for the chunk with its rule, as an early submit waits for the page;
    // without it, nothing is sent and the site URL says so.
    awaitingHostRule: {
      tags: ['locked', 'sending'],
      invoke: {
        id: 'loadHostRule',
        src: 'loadHostRule',
        onDone: {
          target: 'validating',
          actions: [
            {
              type: 'storeHostRule',
              params: ({ event }) => ({ hostRule: event.output }),
            },
          ],
        },
        onError: {
          target: 'idle',
          actions: ['checkFormWithoutHostRule', 'announceErrors'],
        },
      },
    },
    submitting: {
      tags: ['locked', 'sending'],
      invoke: {
        id: 'submitSignUp',
        src: 'submitSignUp',
        input: ({ context }): SignUpRequest => {
          // `validating` lets us in only when `checkForm` found no error,
          // and then it made the request (common/signUpRuleActions.ts).
          return context.request as SignUpRequest;
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
            {
              type: 'explainFailure',
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
      // R4.2: the captcha is reset whatever the outcome; a token is good for
      // one verification only (D23).
      exit: ['resetCaptcha', 'forgetCaptchaToken'],
    },
    // The browser is leaving for `/`: the form stays locked meanwhile.
    success: { type: 'final', tags: ['locked', 'signedUp'] },
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

type SignUpSnapshot = SnapshotFrom<typeof signUpMachine>;

/**
 * The questions the views ask, answered from tags and context so that no
 * view names a state.
 */

/** Whether the form's controls are locked (R4.1): while sending, and after success. */
export function selectLocked(snapshot: SignUpSnapshot): boolean {
  return snapshot.hasTag('locked');
}

/** Where the sign-up is, as the submit button and the status line say it. */
export type SignUpProgress = 'editing' | 'sending' | 'signedUp';

export function selectProgress(snapshot: SignUpSnapshot): SignUpProgress {
  if (snapshot.hasTag('signedUp')) return 'signedUp';
  return snapshot.hasTag('sending') ? 'sending' : 'editing';
}

/**
 * The failures shown in a message area: the rate limit in its own (R8.1);
 * an e-mail address in use (D43) and every general failure (R8.3) in the
 * general area, each with its own message.
 */
export type AreaFailure = Exclude<Failure['kind'], 'invalidName'>;

/**
 * The failure shown in a message area, or null. A refused name shows at
 * the name field instead, as a field error (R8.2).
 */
export function selectAreaFailure(
  snapshot: SignUpSnapshot,
): AreaFailure | null {
  const failure = snapshot.context.failure;
  return failure && failure.kind !== 'invalidName' ? failure.kind : null;
}

/** Field → message, for every field in error now. */
export function selectFieldErrors(snapshot: SignUpSnapshot): FieldErrors {
  return snapshot.context.errors;
}

/**
 * A field's message among `errors`, or undefined. A field no rule checks
 * (the newsletter box, R5.10) is never among them, so it has none.
 */
export function fieldError(
  errors: FieldErrors,
  field: TextField | CheckboxField | 'captcha',
): string | undefined {
  const byName: Partial<Record<string, string>> = errors;
  return byName[field];
}

/** The form's values as the machine holds them. */
export function selectValues(snapshot: SignUpSnapshot): SignUpValues {
  return snapshot.context.values;
}
