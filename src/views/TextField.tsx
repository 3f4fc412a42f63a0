import type { InputHTMLAttributes } from 'react';

export interface TextFieldProps extends Pick<
  InputHTMLAttributes<HTMLInputElement>,
  'type' | 'autoComplete' | 'inputMode' | 'spellCheck' | 'autoCapitalize'
> {
  /** The input's `name` and `id` (docs/contract.md "Page hooks"). */
  name: 'name' | 'email' | 'url';
  /** The error paragraph's id, referenced by `aria-describedby` while shown. */
  errorId: string;
  label: string;
  hint?: string;
  value: string;
  error: string | undefined;
  /** While the request runs: read-only and announced as unavailable. */
  locked: boolean;
  onValueChange: (value: string) => void;
}

/**
 * A labelled text input with its hint and error, GOV.UK style: the error is
 * a paragraph above the input with a visually hidden "Error:" prefix (screen
 * readers read it out when they reach the input through `aria-describedby`),
 * and `aria-invalid` marks the input itself.
 */
export function TextField({
  name,
  label,
  hint,
  value,
  error,
  errorId,
  locked,
  onValueChange,
  ...inputProps
}: TextFieldProps) {
  const hintId = hint ? `${name}-hint` : undefined;
  const describedBy = [hintId, error && errorId].filter(Boolean).join(' ');
  return (
    <div className={error ? 'field field--error' : 'field'}>
      <label className="field__label" htmlFor={name}>
        {label}
      </label>
      {hint && (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="field__error">
          <span className="visually-hidden">Error: </span>
          {error}
        </p>
      )}
      <input
        {...inputProps}
        className="field__input"
        id={name}
        name={name}
        value={value}
        // Not `disabled`: a disabled input drops the focus of a visitor who
        // pressed Enter in it; read-only keeps focus and blocks typing.
        readOnly={locked}
        aria-disabled={locked || undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        onChange={(event) => onValueChange(event.target.value)}
      />
    </div>
  );
}
