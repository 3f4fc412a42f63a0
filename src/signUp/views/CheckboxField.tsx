import type { CheckboxField as CheckboxFieldName } from '../../../machines/signUpMachine';
import { ERROR_IDS, FieldError, type FieldProps } from './Field';

export type CheckboxFieldProps = FieldProps<CheckboxFieldName, boolean>;

/**
 * A labelled checkbox with its error above it, GOV.UK style; its value is
 * whether it is ticked.
 */
export function CheckboxField({
  name,
  label,
  value,
  error,
  locked,
  onValueChange,
}: CheckboxFieldProps) {
  return (
    <div className={error ? 'field field--error' : 'field'}>
      <FieldError name={name} error={error} />
      <div className="checkbox">
        <input
          className="checkbox__input"
          type="checkbox"
          id={name}
          name={name}
          checked={value}
          aria-disabled={locked || undefined}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? ERROR_IDS[name] : undefined}
          onChange={(event) => onValueChange(event.target.checked)}
        />
        <label className="checkbox__label" htmlFor={name}>
          {label}
        </label>
      </div>
    </div>
  );
}
