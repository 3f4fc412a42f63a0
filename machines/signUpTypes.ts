/**
 * The sign-up machine's data (machines/signUpMachine.ts): its context,
 * input, events and emitted events, and the verdict of the form's rules
 * that its `checkForm` actor returns (contract/signUpForm.ts, which the
 * rules of common/ share). Types only, so that the views and the tests
 * can name them without the machine.
 */
import type {
  AcceptedForm,
  FieldErrors,
  FormToCheck,
  SignUpValues,
} from '../contract/signUpForm';

export type * from '../contract/signUpForm';

export type TextField = 'name' | 'email' | 'url';
export type CheckboxField = 'newsletter' | 'tos';

export interface SignUpInput {
  values?: Partial<SignUpValues>;
  utmCampaign?: string;
}

export interface SignUpContext extends FormToCheck {
  /** Field → message; client-side errors, or the service's refusal of the name. */
  errors: FieldErrors;
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
