/**
 * What every field component of the form shares: one props shape, and the
 * GOV.UK error paragraph with its visually hidden "Error:" prefix (screen
 * readers read it out when they reach the input through `aria-describedby`).
 */

import type { CheckboxField, TextField } from '../../../machines/signUpMachine';

/** The props of every field: a form control and what the machine says of it. */
export interface FieldProps<TName extends string, TValue> {
  /** The input's `name` and `id` (test selectors, docs/contract.md). */
  name: TName;
  label: string;
  value: TValue;
  /** The message the machine shows for this field, if any. */
  error: string | undefined;
  /** While the request runs: announced as unavailable, focus kept. */
  locked: boolean;
  onValueChange: (value: TValue) => void;
}

/**
 * The test selectors of the fields' errors, written out so that the contract's
 * ids can be found here as they are (docs/contract.md#test-selectors). The
 * newsletter box is never in error (R5.10); its id is never rendered.
 */
export const ERROR_IDS = {
  name: 'name-error',
  email: 'email-error',
  url: 'url-error',
  tos: 'tos-error',
  newsletter: 'newsletter-error',
} as const satisfies Record<TextField | CheckboxField, string>;

/** The field's error paragraph, or nothing when the field has no error. */
export function FieldError({
  name,
  error,
}: {
  name: keyof typeof ERROR_IDS;
  error: string | undefined;
}) {
  if (!error) return null;
  return (
    <p id={ERROR_IDS[name]} className="field__error">
      <span className="visually-hidden">Error: </span>
      {error}
    </p>
  );
}
