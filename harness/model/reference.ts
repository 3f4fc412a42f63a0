/**
 * The model-based tests' oracle, written by hand from docs/requirements.md
 * and docs/adr/, and never from the machines it judges: for each
 * state, what the page shows beside the form (the submit button's name,
 * whether the controls are locked, the tag, the settings link) and which
 * cookies are written (the tables below), and for each event of the test
 * models, which state comes next (the reference steppers). The model tests
 * run each path on the real machine and on its reference, and compare them
 * after every step.
 *
 * The steppers know the test models' values (harness/model/
 * signUpModel.ts and consentModel.ts) by what the rules say of them, not by
 * running the rules: `ada@` is an e-mail address without a domain,
 * `localhost:3000` names this computer, and so on.
 */
import type { ConsentEvent, ConsentInput } from '../../machines/consentMachine';
import type { SignUpInput } from '../../machines/signUpMachine';
import type { Failure } from '../../contract/signUp';
import type { SignUpModelEvent } from './signUpModel';

/**
 * The sign-up states a visitor can tell apart (R4.1 to R4.6, R8.1 to R8.3,
 * ADR-0043, ADR-0058, ADR-0071), named as the product's card draws them: a
 * submit waits for its chunks in `validating`, and each kind of failure is one
 * state.
 */
export type SignUpState =
  'idle' | 'validating' | 'submitting' | 'success' | FailureState;

/** A failure's state: `failure.` and its kind. */
export type FailureState = `failure.${Failure['kind']}`;

/**
 * What the page shows in a sign-up state, beside the form's values and
 * errors (harness/model/views.ts turns a row into the whole page).
 */
export interface SignUpStateRow {
  /** R4.1, ADR-0020, ADR-0058, ADR-0071: the inputs, the terms box and the button locked. */
  locked: boolean;
  /** The submit button's name, which says where the sign-up is (ADR-0020). */
  button: string;
  /** R4.3: the login cookies are written on entering it. */
  writesLoginCookies: boolean;
}

/** The sign-up states, one row each. */
export const SIGN_UP_STATES: Record<SignUpState, SignUpStateRow> = {
  idle: {
    locked: false,
    button: 'Create account',
    writesLoginCookies: false,
  },
  validating: {
    locked: true,
    button: 'Creating your account…',
    writesLoginCookies: false,
  },
  submitting: {
    locked: true,
    button: 'Creating your account…',
    writesLoginCookies: false,
  },
  success: {
    locked: true,
    button: 'Account created',
    writesLoginCookies: true,
  },
  // R4.4: after a failure the form is editable again.
  'failure.rateLimited': {
    locked: false,
    button: 'Create account',
    writesLoginCookies: false,
  },
  'failure.invalidName': {
    locked: false,
    button: 'Create account',
    writesLoginCookies: false,
  },
  'failure.emailInUse': {
    locked: false,
    button: 'Create account',
    writesLoginCookies: false,
  },
  'failure.general': {
    locked: false,
    button: 'Create account',
    writesLoginCookies: false,
  },
};

/** The failure's kind in a failure state, else null. */
export function failureKind(state: SignUpState): Failure['kind'] | null {
  return state.startsWith('failure.')
    ? (state.slice('failure.'.length) as Failure['kind'])
    : null;
}

/** The form's fields as the rules name their errors (R5). */
export type FormField = 'name' | 'email' | 'url' | 'tos' | 'captcha';

/**
 * Why a field is marked (R5.1 to R5.9, R8.2, ADR-0059): the page words each
 * (harness/model/views.ts).
 */
export type ErrorReason =
  'required' | 'invalid' | 'local' | 'unchecked' | 'refused';

/** What the visitor typed and ticked. */
export interface FormValues {
  name: string;
  email: string;
  url: string;
  newsletter: boolean;
  tos: boolean;
}

/** The sign-up as the visitor must see it after a step. */
export interface SignUpExpectation {
  state: SignUpState;
  /** The fields marked with an error, and why. */
  errors: Partial<Record<FormField, ErrorReason>>;
  values: FormValues;
  /** Whether the captcha holds an unspent token (R4.2, ADR-0023). */
  captcha: boolean;
}

/** An event of the sign-up test model (harness/model/signUpModel.ts). */
export type SignUpStep =
  | { type: 'field.change'; field: 'name' | 'email' | 'url'; value: string }
  | {
      type: 'checkbox.change';
      field: 'newsletter' | 'tos';
      checked: boolean;
    }
  | { type: 'captcha.solve' }
  | { type: 'captcha.expire' }
  | { type: 'submit' }
  | { type: 'rules.loaded' }
  | { type: 'rules.offline' }
  | { type: 'hostRule.loaded' }
  | { type: 'hostRule.offline' }
  | { type: 'reply.success' }
  | { type: 'reply.failure'; kind: Failure['kind'] };

/**
 * The reference sign-up: R4.1 to R4.6, R5, R8.1 to R8.3 and ADR-0022, ADR-0023,
 * ADR-0043, ADR-0058, ADR-0059, ADR-0071, as steps over the visitor's form.
 */
export class SignUpReference {
  private state: SignUpState = 'idle';
  private errors = new Map<FormField, ErrorReason>();
  private values: FormValues = {
    name: '',
    email: '',
    url: '',
    newsletter: false, // R5.10, ADR-0018: unticked at first
    tos: false,
  };
  private captcha = false;
  private rulesLoaded = false;
  private hostRuleLoaded = false;

  /** @param values the form as prefilled (none in the test model) */
  constructor(values: Partial<FormValues> = {}) {
    this.values = { ...this.values, ...values };
  }

  expectation(): SignUpExpectation {
    return {
      state: this.state,
      errors: Object.fromEntries(this.errors),
      values: { ...this.values },
      captcha: this.captcha,
    };
  }

  /** Whether the step sends the sign-up request (R4.6: only when valid). */
  step(event: SignUpStep): { sent: boolean } {
    const was = this.state;
    const editable = was === 'idle' || failureKind(was) !== null;
    switch (event.type) {
      case 'field.change':
        if (!editable) break;
        this.values[event.field] = event.value;
        this.errors.delete(event.field); // R4.5
        // ADR-0022: typing in a refused name ends the failure.
        if (event.field === 'name' && was === 'failure.invalidName') {
          this.state = 'idle';
        }
        break;
      case 'checkbox.change':
        if (!editable) break;
        this.values[event.field] = event.checked;
        if (event.field === 'tos') this.errors.delete('tos'); // R4.5
        break;
      case 'captcha.solve':
        if (!editable) break;
        this.captcha = true;
        this.errors.delete('captcha');
        break;
      case 'captcha.expire':
        if (editable) this.captcha = false;
        break;
      case 'submit':
        if (!editable) break;
        // R4.4, ADR-0022: the next submit clears the failure.
        if (!this.rulesLoaded) {
          // ADR-0071: nothing is judged until the rules arrive.
          this.errors.clear();
          this.state = 'validating';
          break;
        }
        return this.judge();
      case 'rules.loaded':
        // In `validating`, the rules are awaited until they arrive.
        if (was !== 'validating' || this.rulesLoaded) break;
        this.rulesLoaded = true;
        return this.judge();
      case 'rules.offline':
        if (was !== 'validating' || this.rulesLoaded) break;
        // ADR-0071: nothing can be judged; the general area says so.
        this.enterFailure('general');
        break;
      case 'hostRule.loaded':
        // Then the host rule, which only a waiting submit's host needs.
        if (was !== 'validating' || !this.rulesLoaded) break;
        this.hostRuleLoaded = true;
        return this.judge();
      case 'hostRule.offline':
        if (was !== 'validating' || !this.rulesLoaded) break;
        // ADR-0059: every rule's errors, the site URL's saying it was not
        // checked.
        this.errors = this.invalidFields();
        this.errors.set('url', 'unchecked');
        this.state = 'idle';
        break;
      case 'reply.success':
        if (was !== 'submitting') break;
        this.state = 'success'; // R4.3
        break;
      case 'reply.failure':
        if (was !== 'submitting') break;
        this.enterFailure(event.kind);
        // R8.2: a refused name marks the name field.
        if (event.kind === 'invalidName') this.errors.set('name', 'refused');
        break;
    }
    // R4.2, ADR-0023: the captcha is reset after every request, whatever its
    // end.
    if (was === 'submitting' && this.state !== 'submitting') {
      this.captcha = false;
    }
    return { sent: false };
  }

  /** R4.4: a failure clears every error shown before and shows one. */
  private enterFailure(kind: Failure['kind']) {
    this.state = `failure.${kind}`;
    this.errors.clear();
  }

  /** R4.6, R5, ADR-0058: judge the form, or wait for the host rule first. */
  private judge(): { sent: boolean } {
    // ADR-0058: an internationalised host needs the UTS #46 rule before any
    // verdict.
    if (isInternationalised(this.values.url) && !this.hostRuleLoaded) {
      this.errors.clear();
      this.state = 'validating';
      return { sent: false };
    }
    this.errors = this.invalidFields();
    if (this.errors.size > 0) {
      this.state = 'idle';
      return { sent: false };
    }
    this.state = 'submitting';
    return { sent: true };
  }

  /** The fields R5 refuses, and why, for the test model's values. */
  private invalidFields(): Map<FormField, ErrorReason> {
    const fields = new Map<FormField, ErrorReason>();
    const name = this.values.name.trim();
    const email = this.values.email.trim();
    const url = this.values.url.trim();
    // R5.1: a name is required.
    if (name === '') fields.set('name', 'required');
    // R5.2: a valid address, with a domain.
    if (email === '') fields.set('email', 'required');
    else if (!VALID_EMAILS.has(email)) fields.set('email', 'invalid');
    // R5.3 to R5.7: a site URL is required, and not this computer.
    if (url === '') fields.set('url', 'required');
    else if (LOCAL_URLS.has(url)) fields.set('url', 'local');
    else if (!VALID_URLS.has(url)) fields.set('url', 'invalid');
    // R5.8: the terms accepted; R5.9: the captcha solved.
    if (!this.values.tos) fields.set('tos', 'required');
    if (!this.captcha) fields.set('captcha', 'required');
    return fields;
  }
}

/** The test model's e-mail addresses that R5.2 accepts (`ada@` has no domain). */
const VALID_EMAILS = new Set(['ada@example.com']);

/**
 * The test model's site URLs that R5.3 to R5.7 accept: `example.com` and
 * the internationalised `bücher.de`.
 */
const VALID_URLS = new Set(['example.com', 'bücher.de']);

/** The test model's site URLs that name the visitor's own computer (R5.7). */
const LOCAL_URLS = new Set(['localhost:3000']);

/** ADR-0058: a host with a character outside ASCII, or an `xn--` label. */
const isInternationalised = (url: string) =>
  [...url].some((c) => c > '\x7f') || /(^|[./])xn--/i.test(url);

/** A test model event as the reference names it. */
export function referenceStep(event: SignUpModelEvent): SignUpStep {
  switch (event.type) {
    case 'xstate.done.actor.submitSignUp':
      return { type: 'reply.success' };
    case 'xstate.error.actor.submitSignUp':
      return { type: 'reply.failure', kind: event.error.failure.kind };
    case 'captcha.solve':
      return { type: 'captcha.solve' };
    default:
      return event;
  }
}

/** A path's expectations: at its start, and after each of its events. */
export interface ExpectedRun<T> {
  initial: T;
  after: T[];
}

/**
 * What the sign-up reference expects along a test model path, and whether
 * each step sends the request.
 */
export function expectedSignUpRun(
  input: SignUpInput,
  events: readonly SignUpModelEvent[],
): ExpectedRun<SignUpExpectation> & { sent: boolean[] } {
  const reference = new SignUpReference(input.values);
  const initial = reference.expectation();
  const after: SignUpExpectation[] = [];
  const sent: boolean[] = [];
  for (const event of events) {
    sent.push(reference.step(referenceStep(event)).sent);
    after.push(reference.expectation());
  }
  return { initial, after, sent };
}

/** The consent states (R4.7), and whether the modal is open over them. */
export type ConsentState = 'unset' | 'accepted' | 'rejected';

/** What a consent choice means to the page. */
export interface ConsentStateRow {
  /** R4.8, R4.9: the consent cookie a visitor's choice writes. */
  cookie: '1' | '0' | null;
  /** R4.8, R4.9: whether the tracking tag is on the page. */
  tag: boolean;
  /** R4.10: whether the settings link shows. */
  settingsLink: boolean;
}

/** The consent states, one row each. */
export const CONSENT_STATES: Record<ConsentState, ConsentStateRow> = {
  unset: { cookie: null, tag: false, settingsLink: false },
  accepted: { cookie: '1', tag: true, settingsLink: true },
  rejected: { cookie: '0', tag: false, settingsLink: true },
};

/** The consent as the page must show it after a step. */
export interface ConsentExpectation {
  state: ConsentState;
  modalOpen: boolean;
  /** ADR-0073: the rejection that stands is the browser's signal's. */
  bySignal: boolean;
}

/**
 * The reference consent: R4.7 to R4.11 with ADR-0031, ADR-0032, ADR-0067 and
 * ADR-0073, for the test model's starts and events (`consent.accept`,
 * `consent.reject`, `settings.open`, `modal.close`).
 */
export class ConsentReference {
  private state: ConsentState;
  private modalOpen: boolean;
  private bySignal = false;

  constructor(input: ConsentInput) {
    // ADR-0067: a choice stored under an older revision is no choice. One
    // stored without a revision was made before revisions were stored, so
    // under the policy as first published: revision 1.
    const current =
      input.storedChoice !== 'unset' &&
      (input.storedRevision ?? 1) >= input.revision;
    const outdated = input.storedChoice !== 'unset' && !current;
    if (current) {
      this.state = input.storedChoice;
      this.modalOpen = false;
    } else if (input.gpcSignal) {
      // ADR-0073: the browser's signal rejects where no current choice stands.
      this.state = 'rejected';
      this.bySignal = true;
      this.modalOpen = false;
    } else {
      this.state = 'unset';
      // R4.11, ADR-0032: an ad's visitor is asked; ADR-0067: an outdated choice
      // is asked again.
      const source = input.utmSource?.toLowerCase();
      this.modalOpen =
        outdated || source === 'google' || source === 'microsoft';
    }
  }

  expectation(): ConsentExpectation {
    return {
      state: this.state,
      modalOpen: this.modalOpen,
      bySignal: this.bySignal,
    };
  }

  /**
   * @returns the choice the step made, and where (ADR-0068): the modal a visit
   *   opened, or the settings link's
   */
  step(
    type: ConsentEvent['type'],
  ): { choice: 'accepted' | 'rejected'; where: 'modal' | 'settings' } | null {
    switch (type) {
      case 'consent.accept':
      case 'consent.reject': {
        if (!this.modalOpen) return null;
        const where = this.state === 'unset' ? 'modal' : 'settings';
        this.state = type === 'consent.accept' ? 'accepted' : 'rejected';
        this.modalOpen = false;
        this.bySignal = false;
        return { choice: this.state, where };
      }
      case 'settings.open':
        // R4.10: the link shows once a choice exists.
        if (CONSENT_STATES[this.state].settingsLink) this.modalOpen = true;
        return null;
      case 'modal.close':
        // ADR-0032: closing keeps the choice, or leaves none.
        this.modalOpen = false;
        return null;
    }
  }
}

/** What the consent reference expects along a test model path. */
export function expectedConsentRun(
  input: ConsentInput,
  events: readonly ConsentEvent[],
): ExpectedRun<ConsentExpectation> {
  const reference = new ConsentReference(input);
  const initial = reference.expectation();
  const after = events.map((event) => {
    reference.step(event.type);
    return reference.expectation();
  });
  return { initial, after };
}
