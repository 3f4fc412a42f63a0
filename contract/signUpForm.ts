/**
 * The sign-up form as its rules judge it: the values typed, the fields
 * that can carry an error, and the verdict (R5, R8.2 to R8.7 in
 * docs/requirements.md). Types only, shared by the rules
 * (common/signUpRules.ts, common/validation.ts), the sign-up machine
 * (machines/signUpTypes.ts) and the views, so that the rules need no
 * machine and the machine no rule.
 */
import type { SignUpRequest } from './signUp';

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
export interface FormToCheck {
  values: SignUpValues;
  captchaToken: string | null;
  utmCampaign: string | undefined;
}

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
