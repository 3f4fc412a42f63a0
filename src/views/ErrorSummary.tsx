import { useSelector } from '@xstate/react';
import { forwardRef, type MouseEvent } from 'react';
import {
  selectAreaFailure,
  selectFieldErrors,
  type AreaFailure,
} from '../../machines/signUpMachine';
import type { SignUpActor } from './signUpActor';

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
 * own, the rest in the general one. An e-mail address in use has a message
 * of its own there (D43), which says what to do and nothing about the
 * account.
 */
const FAILURE_MESSAGES = {
  general: {
    testId: 'error-general',
    text: 'Your account was not created: something went wrong on our side or on the way. Check your details and try again in a moment.',
  },
  emailInUse: {
    testId: 'error-general',
    text: 'There is already an account with this email address. Sign in to it instead, or use a different email address.',
  },
  rateLimited: {
    testId: 'error-rate-limit',
    text: 'We have received too many sign-ups from your network. Wait 15 minutes, then try again.',
  },
} as const satisfies Record<AreaFailure, { testId: string; text: string }>;

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

export interface ErrorSummaryProps {
  actorRef: SignUpActor;
}

/**
 * The GOV.UK error summary: "There is a problem", then either the server's
 * failure (the general or rate-limit message area, R2.9) or a link to
 * each field in error. Its inner `role="alert"` makes screen readers announce
 * it when it appears; the form moves focus to it (hence `tabIndex={-1}`).
 */
export const ErrorSummary = forwardRef<HTMLDivElement, ErrorSummaryProps>(
  function ErrorSummary({ actorRef }, ref) {
    const errors = useSelector(actorRef, selectFieldErrors);
    const failureKind = useSelector(actorRef, selectAreaFailure);
    const areaFailure = failureKind ? FAILURE_MESSAGES[failureKind] : undefined;
    const links = ERROR_TARGETS.flatMap(([field, target]) => {
      const message = errors[field];
      return message ? [{ target, message }] : [];
    });
    if (!areaFailure && links.length === 0) return null;
    return (
      <div
        ref={ref}
        id="error-summary"
        className="error-summary"
        tabIndex={-1}
        aria-labelledby="error-summary-title"
        data-testid={areaFailure?.testId}
      >
        <div role="alert">
          <h2 id="error-summary-title" className="error-summary__title">
            There is a problem
          </h2>
          {areaFailure ? (
            <p className="error-summary__text">{areaFailure.text}</p>
          ) : (
            <ul className="error-summary__list">
              {links.map(({ target, message }) => (
                <li key={target}>
                  <a
                    href={`#${target}`}
                    onClick={(event) => focusTarget(event, target)}
                  >
                    {message}
                  </a>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    );
  },
);
