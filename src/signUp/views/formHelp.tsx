/**
 * The form's help, a chunk of its own fetched once the browser is idle or
 * the visitor first touches the form (useFormHelp, formHelpLoader.ts; ADR-0054,
 * ADR-0077): the e-mail typo suggestion
 * (src/signUp/emailSuggestion.ts, with the spell checker) and the advice that
 * shows it, and the error summary's details. Nothing of it is in the
 * page's first load. It imports nothing from the page's bundle but React:
 * a module both shared would be kept whole there.
 */
import type { MouseEvent, ReactNode } from 'react';
import type { FieldErrors } from '../../../machines/signUpMachine';
import type { FormLevelFailure } from '../../../machines/signUpSelectors';

export { suggestEmail } from '../emailSuggestion';

export interface EmailAdviceProps {
  /** The address to suggest. */
  suggested: string;
  /** While the request runs: the button is announced as unavailable. */
  locked: boolean;
  /** Applies the suggestion: the field takes `suggested`, as if typed. */
  onApply: (suggested: string) => void;
}

/** "Did you mean ada@gmail.com?" with a button that applies it. */
export function EmailAdvice({ suggested, locked, onApply }: EmailAdviceProps) {
  return (
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
  );
}

/** Where each error's link leads: the field's input, or the captcha box. */
const ERROR_TARGETS = [
  ['name', 'name'],
  ['email', 'email'],
  ['url', 'url'],
  ['tos', 'tos'],
  ['captcha', 'captcha'],
] as const;

/**
 * The failures shown in a message area (R8.1, R8.3): the rate limit in its
 * own, the rest in the general one (the area itself is the summary's,
 * ErrorSummary.tsx). An e-mail address in use has a message of its own
 * there (ADR-0043), which says what to do and nothing about the account, and
 * links to sign-in by e-mail.
 */
const FAILURE_TEXTS: Record<FormLevelFailure, ReactNode> = {
  general:
    'Your account was not created: something went wrong on our side or on the way. Check your details and try again in a moment.',
  emailInUse: (
    <>
      There is already an account with this email address.{' '}
      <a href="/signin">Sign in to it instead</a>, or use a different email
      address.
    </>
  ),
  rateLimited:
    'We have received too many sign-ups from your network. Wait 15 minutes, then try again.',
};

/**
 * Moves focus to the field an error link names, GOV.UK style: a plain
 * fragment link would scroll without focusing, and would hide the label
 * above the input.
 */
function focusTarget(event: MouseEvent<HTMLAnchorElement>, id: string) {
  const target = document.getElementById(id);
  if (!target) return;
  event.preventDefault();
  const label = document.querySelector(`label[for="${id}"]`);
  (label ?? target).scrollIntoView({ block: 'start' });
  target.focus({ preventScroll: true });
}

export interface ErrorDetailsProps {
  /** The failure of the sign-up's request shown in a message area, if any. */
  failure: FormLevelFailure | null;
  /** Field → message, for every field in error. */
  errors: FieldErrors;
}

/**
 * What the error summary says below "There is a problem": the server's
 * failure, or a link to each field in error (GOV.UK error summary).
 */
export function ErrorDetails({ failure, errors }: ErrorDetailsProps) {
  if (failure) {
    return <p className="error-summary__text">{FAILURE_TEXTS[failure]}</p>;
  }
  return (
    <ul className="error-summary__list">
      {ERROR_TARGETS.flatMap(([field, target]) => {
        const message = errors[field];
        return message
          ? [
              <li key={target}>
                <a
                  href={`#${target}`}
                  onClick={(event) => focusTarget(event, target)}
                >
                  {message}
                </a>
              </li>,
            ]
          : [];
      })}
    </ul>
  );
}
