/**
 * The part of Sentry's browser SDK the page uses, in a chunk of its own:
 * `src/errorReporting.ts` imports this module dynamically, only when a DSN
 * is configured and a first report is made. Named imports let the bundler
 * leave the rest of the SDK out.
 */
import {
  breadcrumbsIntegration,
  captureException,
  captureMessage,
  init,
  type BrowserOptions,
} from '@sentry/browser';

export interface SentryClient {
  captureException: typeof captureException;
  captureMessage: typeof captureMessage;
}

/** Starts the SDK with the page's options (no global handlers of its own). */
export function startSentry(
  options: Pick<BrowserOptions, 'dsn' | 'beforeSend' | 'beforeBreadcrumb'>,
): SentryClient {
  init({
    ...options,
    // Our own handlers decide what is reported; no global wrapping.
    defaultIntegrations: false,
    integrations: [breadcrumbsIntegration({ dom: false })],
  });
  return { captureException, captureMessage };
}
