/**
 * Error reporting (R7.4 in docs/requirements.md: events also go to an
 * error-reporting service; ADR-0037): unexpected failures
 * go to Sentry's browser SDK when `SENTRY_DSN` is configured. The SDK is a
 * separate chunk fetched only when the first report is made, so a page
 * without a DSN, or without an error, never downloads it. Events carry
 * nothing the visitor typed: no request bodies, no input breadcrumbs, no
 * user, and every string is scrubbed of e-mail addresses and URLs other
 * than the page's own.
 */
import type { Failure } from '../../contract/signUp';
import { chunkLoader } from './chunkLoader';
import type { SentryClient } from './sentry';

export interface ErrorReporter {
  /**
   * Reports a general failure of the sign-up request (network, time-out,
   * non-JSON, 5xx, a refusal the page has no message of its own for). The
   * API's expected answers (the rate limit, a refused name, an e-mail
   * address in use) are the product working, not errors: they are dropped
   * (ADR-0037, ADR-0043).
   */
  reportFailure(failure: Failure): void;
  /** An exception nobody handled (a view, a promise). */
  reportException(error: unknown): void;
}

/**
 * @param dsn the Sentry DSN, or undefined: then every report is dropped
 *   and the SDK is never loaded
 * @param ownOrigin the page's origin (kept in URLs; others are scrubbed)
 */
export function createErrorReporter(
  dsn: string | undefined,
  ownOrigin: string,
): ErrorReporter {
  if (!dsn) {
    return { reportFailure: () => {}, reportException: () => {} };
  }
  // Started once, on the first report (ADR-0116).
  const loaded = chunkLoader(() =>
    import('./sentry').then(({ startSentry }) =>
      startSentry({ dsn, ownOrigin }),
    ),
  );
  const report = (send: (Sentry: SentryClient) => void) =>
    void loaded()
      .then(send)
      .catch(() => {
        // Reporting must never break the page (the chunk may fail to load).
      });
  return {
    reportFailure(failure) {
      if (failure.kind !== 'general') return;
      report((Sentry) =>
        Sentry.captureMessage(`sign-up failed: ${failure.reason}`, {
          level: 'error',
          tags: { failure: failure.reason },
        }),
      );
    },
    reportException(error) {
      report((Sentry) => Sentry.captureException(error));
    },
  };
}
