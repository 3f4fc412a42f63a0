/**
 * What every field component of the form shares: one props shape, and the
 * GOV.UK error paragraph with its visually hidden "Error:" prefix (screen
 * readers read it out when they reach the input through `aria-describedby`).
 */

/** The props of every field: a form control and what the machine says of it. */
export interface FieldProps<TName extends string, TValue> {
  /** The input's `name` and `id` (page hooks, docs/contract.md). */
  name: TName;
  label: string;
  value: TValue;
  /** The message the machine shows for this field, if any. */
  error: string | undefined;
  /** While the request runs: announced as unavailable, focus kept. */
  locked: boolean;
  onValueChange: (value: TValue) => void;
}

/** `#{field}-error`: the page hook of a field's error (docs/contract.md). */
export function errorIdOf(name: string): string {
  return `${name}-error`;
}

/** The field's error paragraph, or nothing when the field has no error. */
export function FieldError({
  name,
  error,
}: {
  name: string;
  error: string | undefined;
}) {
  if (!error) return null;
  return (
    <p id={errorIdOf(name)} className="field__error">
      <span className="visually-hidden">Error: </span>
      {error}
    </p>
  );
}
