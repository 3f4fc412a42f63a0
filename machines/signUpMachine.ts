/**
 * The sign-up submission machine (R4.1 to R4.6 in docs/requirements.md),
 * in the five states the product's card draws:
 *
 * idle ──submit──▶ validating ──(client errors)──▶ idle
 *                     │  └──(no errors)──▶ submitting ──done──▶ success (final)
 *                     │                        └──error──▶ failure.<kind>
 *                     ├─ awaitingRules ──error──▶ failure.general
 *                     └─ awaitingHostRule ──error──▶ idle
 * failure ──submit──▶ validating
 *
 * `validating` judges the form at once (`checking`), or first waits, locked,
 * for the chunk its judgement needs: the form's rules (`awaitingRules`,
 * D71) or the UTS #46 host rule (`awaitingHostRule`, D58). Which one is
 * worked out from what the context holds, never stored. `failure` has one
 * substate per failure kind the page tells apart (R8.1 to R8.3, D43), so
 * the diagram shows each. The request is made where it is sent: the
 * `submitSignUp` actor's input, from the rules' verdict.
 *
 * The form's rules (common/signUpRules.ts) and the host rule are chunks the
 * page fetches when the visitor starts typing or a host needs it (D58,
 * D71): the machine holds them in its context once they have arrived.
 * Effects reach it only as named actions and actors, which the page wires
 * in (`src/app.tsx`) and tests replace with `machine.provide(...)`:
 * `submitSignUp` (the HTTP call), `loadRules`, `loadHostRule` and
 * `prefetchRules` (the chunks), `setLoginCookies`, `navigateHome` and
 * `reportFailure`; the captcha widget, which lives in the view, hears
 * `captcha.reset` emitted by the `resetCaptcha` action. It imports only
 * xstate and its contract (machines/signUpContract.ts), and exports the
 * selectors its views ask.
 */
import {
  assertEvent,
  assign,
  emit,
  fromPromise,
  type ErrorActorEvent,
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

export interface SignUpContext {
  values: SignUpValues;
  captchaToken: string | null;
  /** Field → message; client-side errors, or the server's refusal of the name. */
  errors: FieldErrors;
  utmCampaign: string | undefined;
  /** The form's rules (common/signUpRules.ts), once their chunk has loaded. */
  rules: SignUpRules | null;
  /** The UTS #46 host rule (common/domainName.ts), once its chunk has loaded. */
  hostRule: HostRule | null;
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
 * The failure kind of the `submitSignUp` actor's error event, the only
 * event the guards that ask it see (`submitting`'s `onError`); setup types
 * guards with the machine's own events only.
 */
function failureKindOf(event: SignUpEvent): Failure['kind'] {
  return failureOf((event as unknown as ErrorActorEvent).error).kind;
}

/**
 * The rules' verdict on the form (R5, R4.6), or null while the site URL's
 * host waits for the host rule (D58). `validating` asks it only once the
 * form's rules have loaded (`lacksRules` comes first).
 */
function verdictOf(context: SignUpContext): RulesVerdict | null {
  return (context.rules as SignUpRules).check(context, context.hostRule);
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

/**
 * R7.4, D37: each way out of `submitting` into `failure` reports the
 * failure the sign-up actor's error stands for.
 */
const reportSubmitFailure = {
  type: 'reportFailure',
  params: ({ event }: { event: ErrorActorEvent }) => failureOf(event.error),
} as const;

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
    // R4.4: a submit clears every earlier error; D71, D58: while it waits
    // for a chunk, none shows.
    clearErrors: assign({ errors: {} }),
    // R5, R4.6: every client-side rule's first message, at once.
    showFormErrors: assign(({ context }) => ({
      errors: (verdictOf(context) as RulesVerdict).errors,
    })),
    // D59: the host rule could not be loaded; the site URL says so.
    checkFormWithoutHostRule: assign(({ context }) => ({
      // `validating` waits for the host rule only once it has the rules.
      errors: (context.rules as SignUpRules).checkWithoutHostRule(context),
    })),
    storeRules: assign((_, { rules }: { rules: SignUpRules }) => ({ rules })),
    storeHostRule: assign((_, { hostRule }: { hostRule: HostRule }) => ({
      hostRule,
    })),
    // Implemented by the page: starts loading the chunks the form will
    // need, so that a submit rarely waits (D58, D71).
    prefetchRules: () => {},
    // R8.2: a refused name marks the name field with its help text; only
    // `submitting`, which had the rules, leads to that failure.
    markNameRefused: assign(({ context }) => ({
      errors: { name: (context.rules as SignUpRules).nameRefused },
    })),
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
    // D71: nothing is judged before the form's rules arrive.
    lacksRules: ({ context }) => context.rules === null,
    // D58: an internationalised host is judged only with the UTS #46 rule.
    lacksHostRule: ({ context }) => verdictOf(context) === null,
    formHasErrors: ({ context }) =>
      Object.keys((verdictOf(context) as RulesVerdict).errors).length > 0,
    // R8.1, R8.2, D43: the kinds of failure the page tells apart; any
    // other is general (R8.3).
    isRateLimited: ({ event }) => failureKindOf(event) === 'rateLimited',
    isNameRefused: ({ event }) => failureKindOf(event) === 'invalidName',
    isEmailInUse: ({ event }) => failureKindOf(event) === 'emailInUse',
    // D22: only typing in the refused name ends that failure.
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
    rules: input.rules ?? null,
    hostRule: null,
  }),
  initial: 'idle',
  states: {
    idle: {
      on: editing,
    },
    validating: {
      entry: 'clearErrors',
      initial: 'checking',
      states: {
        checking: {
          always: [
            { guard: 'lacksRules', target: 'awaitingRules' },
            { guard: 'lacksHostRule', target: 'awaitingHostRule' },
            {
              guard: 'formHasErrors',
              target: '#signUp.idle',
              actions: ['showFormErrors', 'announceErrors'],
            },
            { target: '#signUp.submitting' },
          ],
        },
        // D71: a submit before the form's rules have arrived waits for
        // them; without them nothing can be judged or sent, and the general
        // area says so (the page could not fetch them: the network).
        awaitingRules: {
          tags: ['locked', 'sending'],
          invoke: {
            id: 'loadRules',
            src: 'loadRules',
            onDone: {
              target: 'checking',
              actions: {
                type: 'storeRules',
                params: ({ event }) => ({ rules: event.output }),
              },
            },
            onError: { target: '#signUp.failure.general' },
          },
        },
        // D58, D59: a host with a non-ASCII character or an `xn--` label
        // waits for the chunk with its rule, as an early submit waits for
        // the page; without it, nothing is sent and the site URL says so.
        awaitingHostRule: {
          tags: ['locked', 'sending'],
          invoke: {
            id: 'loadHostRule',
            src: 'loadHostRule',
            onDone: {
              target: 'checking',
              actions: {
                type: 'storeHostRule',
                params: ({ event }) => ({ hostRule: event.output }),
              },
            },
            onError: {
              target: '#signUp.idle',
              actions: ['checkFormWithoutHostRule', 'announceErrors'],
            },
          },
        },
      },
    },
    submitting: {
      tags: ['locked', 'sending'],
      invoke: {
        id: 'submitSignUp',
        src: 'submitSignUp',
        // `checking` lets a form in only when the rules' verdict had no
        // error, and then the rules made its request (common/signUpRules.ts).
        input: ({ context }) =>
          (verdictOf(context) as RulesVerdict).request as SignUpRequest,
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
        // R8.1 to R8.3, D43: the failure's kind picks the substate; each is
        // reported (R7.4, D37).
        onError: [
          {
            guard: 'isRateLimited',
            target: 'failure.rateLimited',
            actions: reportSubmitFailure,
          },
          {
            guard: 'isNameRefused',
            target: 'failure.invalidName',
            actions: reportSubmitFailure,
          },
          {
            guard: 'isEmailInUse',
            target: 'failure.emailInUse',
            actions: reportSubmitFailure,
          },
          {
            target: 'failure.general',
            actions: reportSubmitFailure,
          },
        ],
      },
      // R4.2: the captcha is reset whatever the outcome; a token is good for
      // one verification only (D23).
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
        // R8.1: the rate limit's own area.
        rateLimited: {},
        // R8.2: the name field says why; D22: typing in it ends the failure.
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
        // D43: the general area, with a message of its own.
        emailInUse: {},
        // R8.3: the general area.
        general: {},
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
  const shown = (['rateLimited', 'emailInUse', 'general'] as const).find(
    (kind) => snapshot.matches({ failure: kind }),
  );
  return shown ?? null;
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
