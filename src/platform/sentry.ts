/**
 * The part of Sentry's browser SDK the page uses, in a chunk of its own:
 * `src/platform/errorReporting.ts` imports this module dynamically, only when a DSN
 * is configured and a first report is made. Named imports let the bundler
 * leave the rest of the SDK out.
 */
import {
  breadcrumbsIntegration,
  captureException,
  captureMessage,
  init,
} from '@sentry/browser';
import { keepBreadcrumb, redactEvent } from './errorScrubbing';

export interface SentryClient {
  captureException: typeof captureException;
  captureMessage: typeof captureMessage;
}

/**
 * Starts the SDK (no global handlers of its own) with events scrubbed of
 * anything typed (src/platform/errorScrubbing.ts).
 *
 * @param options.dsn where reports go (`SENTRY_DSN`)
 * @param options.ownOrigin the page's origin: its URLs stay in reports
 */
export function startSentry(options: {
  dsn: string;
  ownOrigin: string;
}): SentryClient {
  init({
    dsn: options.dsn,
    beforeSend: (event) => redactEvent(event, options.ownOrigin),
    beforeBreadcrumb: keepBreadcrumb,
    // Our own handlers decide what is reported; no global wrapping.
    defaultIntegrations: false,
    integrations: [breadcrumbsIntegration({ dom: false })],
  });
  return { captureException, captureMessage };
}
