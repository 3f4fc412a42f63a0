/**
 * The e-mail typo suggestion in the form (issue 22; ADR-0054):
 * advice below the e-mail input, never an error and
 * never in the way of a sign-up. The suggestion itself is a pure function
 * (src/signUp/emailSuggestion.ts), loaded with the advice that shows it
 * (formHelp.tsx) as a chunk of its own once the browser is idle or the
 * visitor first touches the form, after the first paint.
 */
import { useState } from 'react';
import type * as Advice from './formHelp';
import type { FormHelpModule } from './formHelpLoader';

export interface EmailSuggestionView {
  /**
   * The address to suggest for `email`, the field's value now: only while
   * it is still the address last checked, and once the function has
   * loaded; undefined otherwise.
   */
  suggestionFor: (email: string) => string | undefined;
  /** The advice's component, once its chunk has loaded. */
  Advice: typeof Advice.EmailAdvice | undefined;
  /** Checks an address: on the field's blur and on submit. */
  check: (email: string) => void;
}

/**
 * Keeps the address last checked, and suggests for it once the form's help
 * has arrived (formHelpLoader.ts): an address checked before gets its
 * suggestion then; without the help the form has no suggestions, as advice
 * it can do without.
 *
 * @param help the form's help, once it has arrived
 */
export function useEmailSuggestion(
  help: FormHelpModule | undefined,
): EmailSuggestionView {
  const [checked, setChecked] = useState<string>();
  return {
    suggestionFor: (email) =>
      help && checked !== undefined && email === checked
        ? help.suggestEmail(checked)
        : undefined,
    Advice: help?.EmailAdvice,
    check: setChecked,
  };
}

export interface EmailSuggestionProps extends Omit<
  Advice.EmailAdviceProps,
  'suggested'
> {
  /** The address to suggest; nothing is shown when undefined. */
  suggested: string | undefined;
  /** The advice's component; nothing is shown before it has loaded. */
  Advice: typeof Advice.EmailAdvice | undefined;
}

/**
 * The advice's polite live region (WAI-ARIA 1.2, `aria-live`), always
 * rendered, so that screen readers announce the suggestion once, when it
 * appears.
 */
export function EmailSuggestion({
  suggested,
  Advice,
  ...props
}: EmailSuggestionProps) {
  return (
    <div className="email-suggestion__live" aria-live="polite">
      {suggested !== undefined && Advice && (
        <Advice suggested={suggested} {...props} />
      )}
    </div>
  );
}
