import { forwardRef } from 'react';
import type { FieldErrors } from '../../../machines/signUpMachine';
import type { FormLevelFailure } from '../../../machines/signUpSelectors';
import type { ErrorDetails } from './formHelp';

/** The message area each failure is shown in (R8.1, R8.3; ADR-0043). */
const AREA_TEST_IDS: Record<FormLevelFailure, string> = {
  general: 'error-general',
  emailInUse: 'error-general',
  rateLimited: 'error-rate-limit',
};

export interface ErrorSummaryProps {
  /** The failure of the sign-up's request shown in a message area, if any. */
  failure: FormLevelFailure | null;
  /** Field → message, for every field in error. */
  errors: FieldErrors;
  /**
   * What it says below its title (formHelp.tsx), once the form's help has
   * arrived (ADR-0077): until then, the title alone, and each field's own
   * message.
   */
  Details: typeof ErrorDetails | undefined;
}

/**
 * The GOV.UK error summary: "There is a problem", then either the server's
 * failure (the general or rate-limit message area, R2.9) or a link to
 * each field in error. Its inner `role="alert"` makes screen readers announce
 * it when it appears; the form moves focus to it (hence `tabIndex={-1}`).
 */
export const ErrorSummary = forwardRef<HTMLDivElement, ErrorSummaryProps>(
  function ErrorSummary({ failure, errors, Details }, ref) {
    if (!failure && Object.keys(errors).length === 0) return null;
    return (
      <div
        ref={ref}
        id="error-summary"
        className="error-summary"
        tabIndex={-1}
        aria-labelledby="error-summary-title"
        data-testid={failure ? AREA_TEST_IDS[failure] : undefined}
      >
        <div role="alert">
          <h2 id="error-summary-title" className="error-summary__title">
            There is a problem
          </h2>
          {Details && <Details failure={failure} errors={errors} />}
        </div>
      </div>
    );
  },
);
