/**
 * The sign-up machine's data (machines/signUpMachine.ts): its context,
 * input, events and emitted events, and the verdict of the form's rules
 * that its `checkForm` actor returns. Types only, so that the rules
 * (common/), the views and the tests can name them without the machine.
 */
import type { SignUpRequest } from '../contract/signUp';

export type TextField = 'name' | 'email' | 'url';
export type CheckboxField = 'newsletter' | 'tos';
/** The fields that can carry an error message; `captcha` is the captcha notice. */
export type ErrorField = 'name' | 'email' | 'url' | 'tos' | 'captcha';

/** Field → the message shown for it. */
export type FieldErrors = Partial<Record<ErrorField, string>>;

export interface SignUpValues {
  name: string;
  email: string;
  url: string;
  newsletter: boolean;
  tos: boolean;
}

/** What the form's rules judge: the values, the captcha token, the campaign. */
export type FormToCheck = Pick<
  SignUpContext,
  'values' | 'captchaToken' | 'utmCampaign'
>;

/** A form the rules let through. */
export interface AcceptedForm {
  /** What `submitting` sends (R3.1). */
  request: SignUpRequest;
  /** R8.2: the name field's text should the service refuse the name. */
  nameRefused: string;
}

/** The verdict of the form's rules (common/signUpRules.ts). */
export interface FormVerdict {
  /** Field → first message (R5, R8.4 to R8.7); `{}` when it may be sent. */
  errors: FieldErrors;
  /** The form to send; null while there are errors. */
  accepted: AcceptedForm | null;
}

export interface SignUpInput {
  values?: Partial<SignUpValues>;
  utmCampaign?: string;
}

export interface SignUpContext {
  values: SignUpValues;
  captchaToken: string | null;
  /** Field → message; client-side errors, or the service's refusal of the name. */
  errors: FieldErrors;
  utmCampaign: string | undefined;
  /** What the last verdict let through; null until one did. */
  accepted: AcceptedForm | null;
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

/** The machine's types, as xstate's `setup` takes them. */
export interface SignUpMachineTypes {
  context: SignUpContext;
  events: SignUpEvent;
  input: SignUpInput;
  emitted: SignUpEmitted;
  tags: 'locked' | 'sending' | 'signedUp';
}
