/**
 * The sign-up submission machine (R4.1 to R4.6 in docs/requirements.md).
 *
 * idle ──submit──▶ validating ──(client errors)──▶ idle
 *                     │ └──(no errors)──▶ submitting ──done──▶ success (final)
 *                     │                        └──error──▶ failure ──submit──▶ validating
 *                     ├──(rules not loaded)──▶ awaitingRules ──done──▶ validating
 *                     │                              └──error──▶ failure
 *                     └──(host rule not loaded)──▶ awaitingHostRule ──done──▶ validating
 *                                                        └──error──▶ idle
 *
 * The form's rules (common/signUpRules.ts) and the UTS #46 host rule are
 * chunks the page fetches when the visitor starts typing or a host needs
 * it (D58, D71): the machine holds them in its context once they have
 * arrived, and `validating` judges the form with them. Effects reach it
 * only as named actions and actors, which the page wires in (`src/app.tsx`)
 * and tests replace with `machine.provide(...)`: `submitSignUp` (the HTTP
 * call), `loadRules`, `loadHostRule` and `prefetchRules` (the chunks),
 * `setLoginCookies`, `navigateHome` and `reportFailure`; the captcha
 * widget, which lives in the view, hears `captcha.reset` emitted by the
 * `resetCaptcha` action. It imports only xstate and its contract
 * (machines/signUpContract.ts), and exports the selectors its views ask.
 */
import {
  assertEvent,
  assign,
  emit,
  fromPromise,
  setup,
  type NonReducibleUnknown,
  type SnapshotFrom,
} from 'xstate';
import type {
  Failure,
  Session,
  SignUpRejection,
  SignUpRequest,
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

/** What the form's rules judge: the values, the captcha token, the campaign. */
export type FormToCheck = Pick<
  SignUpContext,
  'values' | 'captchaToken' | 'utmCampaign'
>;

/** The verdict of the form's rules on a form they could judge whole. */
export interface RulesVerdict {
  /** Field → first message (R5, R8.4 to R8.7); `{}` when it may be sent. */
  errors: FieldErrors;
  /** What `submitting` sends; null while there are errors. */
  request: SignUpRequest | null;
}

/**
 * The form's client-side rules (common/signUpRules.ts), which the page
 * loads as a chunk (D71): the machine judges the form with them and
 * imports none of them.
 */
export interface SignUpRules {
  /**
   * Every client-side rule at once (R5, R4.6).
   *
   * @param hostRule the UTS #46 host rule, once loaded
   * @returns the verdict, or null when the site URL's host needs
   *   `hostRule` and none is given (D58)
   */
  check(form: FormToCheck, hostRule: HostRule | null): RulesVerdict | null;
  /**
   * Every rule's errors when the host rule could not be loaded: the site
   * URL's says that it could not be checked (D59).
   */
  checkWithoutHostRule(form: FormToCheck): FieldErrors;
  /** R8.2: the name field's help text when the service refuses the name. */
  nameRefused: string;
}

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
  /** The form's rules, when the caller has them already (tests). */
  rules?: SignUpRules;
}

/** Which chunk `validating` found missing: the form's rules, or the host rule. */
export type AwaitedRule = 'rules' | 'hostRule';

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
  /** The form's rules (common/signUpRules.ts), once their chunk has loaded. */
  rules: SignUpRules | null;
  /** The UTS #46 host rule (common/domainName.ts), once its chunk has loaded. */
  hostRule: HostRule | null;
  /** Set by `checkForm`: the chunk the form's judgement waits for. */
  awaiting: AwaitedRule | null;
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

/**
 * The failure an error from the sign-up actor stands for (R8.1 to R8.3):
 * a `SignUpRejection`'s, else a general one. The client runs in a chunk of
 * its own (D71) with its own copy of machines/signUpContract.ts, so a
 * rejection is told by its name and failure, not by `instanceof`.
 */
export function failureOf(error: unknown): Failure {
  if (error instanceof Error && error.name === 'SignUpRejection') {
    const { failure } = error as Partial<SignUpRejection>;
    if (failure !== undefined) return failure;
  }
  return { kind: 'general', reason: 'unexpected' };
}

/**
 * An actor the page provides (src/app.tsx): until it does, the actor fails
 * with an error that names it, for a developer's debugger (the machine
 * reads no error's text: `failureOf`).
 */
function unprovided<TOutput, TInput = NonReducibleUnknown>(name: string) {
  return fromPromise<TOutput, TInput>(() =>
    Promise.reject(new Error(`${name} was not provided`)),
  );
}

/** Shared by `idle` and `failure`: the visitor edits the form. */
const editing = {
  'field.change': { actions: ['changeField', 'prefetchRules'] },
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
    submitSignUp: unprovided<Session, SignUpRequest>('submitSignUp'),
    // Replaced by the page with the chunks' loaders (src/chunkLoader.ts).
    loadRules: unprovided<SignUpRules>('loadRules'),
    loadHostRule: unprovided<HostRule>('loadHostRule'),
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
    // R5, R4.6: every client-side rule at once, with the rules the page has
    // loaded; a missing chunk is awaited instead (D58, D71).
    checkForm: assign(({ context }) => {
      const verdict = context.rules?.check(context, context.hostRule);
      if (verdict) return { ...verdict, awaiting: null };
      return {
        errors: {},
        request: null,
        awaiting: context.rules ? 'hostRule' : 'rules',
      } satisfies Partial<SignUpContext>;
    }),
    // D59: the host rule could not be loaded; the site URL says so.
    checkFormWithoutHostRule: assign(({ context }) => ({
      // `validating` waits for the host rule only once it has the rules.
      errors: (context.rules as SignUpRules).checkWithoutHostRule(context),
      request: null,
      awaiting: null,
    })),
    storeRules: assign((_, { rules }: { rules: SignUpRules }) => ({ rules })),
    storeHostRule: assign((_, { hostRule }: { hostRule: HostRule }) => ({
      hostRule,
    })),
    // Implemented by the page: starts loading the chunks the form will
    // need, so that a submit rarely waits (D58, D71).
    prefetchRules: () => {},
    // R4.4: a failure clears every earlier error and shows one.
    recordFailure: assign((_, failure: Failure) => ({
      failure,
      errors: {},
    })),
    // R8.2: a refused name marks the name field with its help text.
    explainFailure: assign(({ context }, failure: Failure) =>
      failure.kind === 'invalidName' && context.rules
        ? { errors: { name: context.rules.nameRefused } }
        : {},
    ),
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
    awaitsRules: ({ context }) => context.awaiting === 'rules',
    awaitsHostRule: ({ context }) => context.awaiting === 'hostRule',
    hasFieldErrors: ({ context }) => Object.keys(context.errors).length > 0,
    // D22: in `failure` only a refused name marks the name field (R8.2,
    // `explainFailure`), and only typing in the name clears that mark.
    isNameEditAfterRefusal: ({ context, event }) => {
      assertEvent(event, 'field.change');
      return event.field === 'name' && context.errors.name !== undefined;
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
    rules: input.rules ?? null,
    hostRule: null,
    awaiting: null,
  }),
  initial: 'idle',
  states: {
    idle: {
      on: editing,
    },
    validating: {
      entry: ['clearFailure', 'checkForm'],
      always: [
        { guard: 'awaitsRules', target: 'awaitingRules' },
        { guard: 'awaitsHostRule', target: 'awaitingHostRule' },
        { guard: 'hasFieldErrors', target: 'idle', actions: 'announceErrors' },
        { target: 'submitting' },
      ],
    },
    // D71: a submit before the form's rules have arrived waits for them;
    // without them nothing can be judged or sent, and the general area says
    // so (the page could not fetch them: the network).
    awaitingRules: {
      tags: ['locked', 'sending'],
      invoke: {
        id: 'loadRules',
        src: 'loadRules',
        onDone: {
          target: 'validating',
          actions: [
            {
              type: 'storeRules',
              params: ({ event }) => ({ rules: event.output }),
            },
          ],
        },
        onError: {
          target: 'failure',
          actions: [
            {
              type: 'recordFailure',
              params: { kind: 'general', reason: 'network' },
            },
            'announceErrors',
          ],
        },
      },
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
          // and then the rules made the request (common/signUpRules.ts).
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
export type FormLevelFailure = Exclude<Failure['kind'], 'invalidName'>;

/**
 * The failure shown in a message area, or null. A refused name shows at
 * the name field instead, as a field error (R8.2).
 */
export function selectFormLevelFailure(
  snapshot: SignUpSnapshot,
): FormLevelFailure | null {
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
