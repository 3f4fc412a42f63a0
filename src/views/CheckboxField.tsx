export interface CheckboxFieldProps {
  /** The input's `name` and `id` (docs/contract.md "Page hooks"). */
  name: 'newsletter' | 'tos';
  label: string;
  checked: boolean;
  /** The error's text and its paragraph's id, when the box is in error. */
  error?: { id: string; message: string } | undefined;
  /** While the request runs: announced as unavailable, focus kept. */
  locked: boolean;
  onCheckedChange: (checked: boolean) => void;
}

/**
 * A labelled checkbox with its error above it, GOV.UK style (the error's
 * visually hidden "Error:" prefix is read out with the box through
 * `aria-describedby`).
 */
export function CheckboxField({
  name,
  label,
  checked,
  error,
  locked,
  onCheckedChange,
}: CheckboxFieldProps) {
  return (
    <div className={error ? 'field field--error' : 'field'}>
      {error && (
        <p id={error.id} className="field__error">
          <span className="visually-hidden">Error: </span>
          {error.message}
        </p>
      )}
      <div className="checkbox">
        <input
          className="checkbox__input"
          type="checkbox"
          id={name}
          name={name}
          checked={checked}
          aria-disabled={locked || undefined}
          aria-invalid={error ? true : undefined}
          aria-describedby={error?.id}
          onChange={(event) => onCheckedChange(event.target.checked)}
        />
        <label className="checkbox__label" htmlFor={name}>
          {label}
        </label>
      </div>
    </div>
  );
}
