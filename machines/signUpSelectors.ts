/**
 * The questions the views ask the sign-up machine, answered from its tags
 * and context so that no view names a state.
 */
import type { SnapshotFrom } from 'xstate';
import type { Failure } from '../contract/signUp';
import type { signUpMachine } from './signUpMachine';
import type {
  CheckboxField,
  FieldErrors,
  SignUpValues,
  TextField,
} from './signUpTypes';

type SignUpSnapshot = SnapshotFrom<typeof signUpMachine>;

/** Whether the form's controls are locked (R4.1): while judging and sending, and after success. */
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
 * an e-mail address in use (ADR-0043) and every general failure (R8.3) in the
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
