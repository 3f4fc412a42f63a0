/**
 * What an error report may carry (src/platform/errorReporting.ts): nothing the
 * visitor typed. Part of the lazy Sentry chunk (src/platform/sentry.ts), so a visit
 * that reports nothing never downloads it.
 */
import type { Breadcrumb, ErrorEvent } from '@sentry/browser';

const EMAIL = /[^\s@"'<>]+@[^\s@"'<>]+\.[^\s@"'<>]+/g;
const URL_LIKE = /\b(?:https?:\/\/|www\.)[^\s"'<>]+/gi;

/** Replaces e-mail addresses and foreign URLs in every string of `value`. */
export function scrub<T>(value: T, ownOrigin: string): T {
  if (typeof value === 'string') {
    return value
      .replace(EMAIL, '[email]')
      .replace(URL_LIKE, (url) =>
        url.startsWith(ownOrigin) ? url : '[url]',
      ) as T;
  }
  if (Array.isArray(value)) {
    return value.map((item: unknown) => scrub(item, ownOrigin)) as T;
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, scrub(item, ownOrigin)]),
    ) as T;
  }
  return value;
}

/** Sentry's `beforeSend`: drops what could hold typed values, then scrubs. */
export function redactEvent(event: ErrorEvent, ownOrigin: string): ErrorEvent {
  const { request, user: _user, ...rest } = event;
  const safe: ErrorEvent = {
    ...rest,
    ...(request && {
      request: { url: request.url?.split(/[?#]/)[0], headers: {} },
    }),
  };
  return scrub(safe, ownOrigin);
}

/** Sentry's `beforeBreadcrumb`: no console output, no input events. */
export function keepBreadcrumb(breadcrumb: Breadcrumb): Breadcrumb | null {
  if (breadcrumb.category === 'console' || breadcrumb.category === 'ui.input') {
    return null;
  }
  return breadcrumb;
}
