import type { InputHTMLAttributes, ReactNode } from 'react';
import type { TextField as TextFieldName } from '../../../machines/signUpMachine';
import { ERROR_IDS, FieldError, type FieldProps } from './Field';

export interface TextFieldProps
  extends
    FieldProps<TextFieldName, string>,
    Pick<
      InputHTMLAttributes<HTMLInputElement>,
      | 'type'
      | 'autoComplete'
      | 'inputMode'
      | 'spellCheck'
      | 'autoCapitalize'
      | 'enterKeyHint'
      | 'onBlur'
    > {
  hint?: string;
  /** Rendered below the input (the e-mail typo suggestion). */
  below?: ReactNode;
}

/**
 * A labelled text input with its hint and error, GOV.UK style: the error is
 * a paragraph above the input, and `aria-invalid` marks the input itself.
 */
export function TextField({
  name,
  label,
  hint,
  value,
  error,
  locked,
  onValueChange,
  below,
  ...inputProps
}: TextFieldProps) {
  const hintId = hint ? `${name}-hint` : undefined;
  const describedBy = [hintId, error && ERROR_IDS[name]]
    .filter(Boolean)
    .join(' ');
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
      <FieldError name={name} error={error} />
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
      {below}
    </div>
  );
}
