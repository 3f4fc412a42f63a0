/**
 * The e-mail typo suggestion in the form (issue 22; D54 in
 * docs/decisions.md): advice below the e-mail input, never an error and
 * never in the way of a sign-up. The suggestion itself is a pure function
 * (src/emailSuggestion.ts) loaded as a chunk of its own once the browser is
 * idle or the visitor first touches the form, after the first paint.
 */
import { useEffect, useState, type RefObject } from 'react';
import { whenIdleOrInteracted } from './whenIdle';

/** The suggestion's function, as src/emailSuggestion.ts exports it. */
type Suggest = (typed: string) => string | undefined;

export interface EmailSuggestionView {
  /**
   * The address to suggest for `email`, the field's value now: only while
   * it is still the address last checked, and once the function has
   * loaded; undefined otherwise.
   */
  suggestionFor: (email: string) => string | undefined;
  /** Checks an address: on the field's blur and on submit. */
  check: (email: string) => void;
}

/**
 * Loads src/emailSuggestion.ts when the browser is idle or the visitor
 * first interacts with the form (src/views/whenIdle.ts), and keeps the
 * address last checked. An address checked before the function has loaded
 * gets its suggestion once it has; a failed load leaves the form without
 * suggestions, as advice it can do without.
 */
export function useEmailSuggestion(
  formRef: RefObject<HTMLFormElement | null>,
): EmailSuggestionView {
  const [suggest, setSuggest] = useState<Suggest>();
  const [checked, setChecked] = useState<string>();
  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    let mounted = true;
    const cancel = whenIdleOrInteracted(form, () => {
      import('../emailSuggestion').then(
        ({ suggestEmail }) => {
          if (mounted) setSuggest(() => suggestEmail);
        },
        () => {},
      );
    });
    return () => {
      mounted = false;
      cancel();
    };
  }, [formRef]);
  return {
    suggestionFor: (email) =>
      suggest && checked !== undefined && email === checked
        ? suggest(checked)
        : undefined,
    check: setChecked,
  };
}

export interface EmailSuggestionProps {
  /** The address to suggest; nothing is shown when undefined. */
  suggested: string | undefined;
  /** While the request runs: the button is announced as unavailable. */
  locked: boolean;
  /** Applies the suggestion: the field takes `suggested`, as if typed. */
  onApply: (suggested: string) => void;
}

/**
 * "Did you mean ada@gmail.com?" with a button that applies it, in a polite
 * live region (WAI-ARIA 1.2, `aria-live`) that is always rendered, so that
 * screen readers announce the suggestion once, when it appears.
 */
export function EmailSuggestion({
  suggested,
  locked,
  onApply,
}: EmailSuggestionProps) {
  return (
    <div className="email-suggestion__live" aria-live="polite">
      {suggested !== undefined && (
        <p className="email-suggestion" data-testid="email-suggestion">
          Did you mean <strong>{suggested}</strong>?{' '}
          <button
            type="button"
            className="link-button email-suggestion__apply"
            aria-disabled={locked || undefined}
            onClick={() => {
              if (!locked) onApply(suggested);
            }}
          >
            Use this address
          </button>
        </p>
      )}
    </div>
  );
}
