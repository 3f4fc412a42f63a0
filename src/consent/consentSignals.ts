/**
 * The consent signals of the ad networks whose campaigns open the consent
 * modal (ADR-0066): Google's Consent Mode v2 on
 * `window.dataLayer`, as `gtag('consent', …)` pushes it, and Microsoft
 * UET's consent mode on `window.uetq`, as its documentation pushes it. The
 * defaults are pushed by the page's inline script, before any other
 * script runs; the updates by the consent machine's transitions
 * (`signalConsent`, provided in src/app.tsx), before the tag loads. Free of
 * imports: it is bundled into the inline script.
 */

/** `granted` after an accept, `denied` otherwise. */
export type ConsentSignal = 'granted' | 'denied';

declare global {
  interface Window {
    /** Google's command queue (gtag.js, Google Tag Manager). */
    dataLayer?: unknown[];
    /** Microsoft UET's command queue. */
    uetq?: unknown[];
  }
  interface Navigator {
    /**
     * Global Privacy Control (GPC specification, "the
     * globalPrivacyControl property"): true when the visitor asks sites not
     * to sell or share their data; absent where the browser lacks it.
     */
    readonly globalPrivacyControl?: boolean;
  }
}

/**
 * The attribute the sign-up service puts on `<html>` when the request
 * carried `Sec-GPC: 1` (scripts/build.ts writes that copy of the page;
 * ADR-0074).
 */
export const GPC_ATTRIBUTE = 'data-gpc';

/**
 * Whether the browser sends Global Privacy Control (ADR-0073):
 * `navigator.globalPrivacyControl` is true, or the service marked the page
 * because the request carried `Sec-GPC: 1` (a browser or an extension may
 * send the header without the property).
 */
export function sendsGpc(win: Window): boolean {
  return (
    win.navigator.globalPrivacyControl === true ||
    win.document.documentElement.hasAttribute(GPC_ATTRIBUTE)
  );
}

/** The window's two command queues, created when missing. */
export type SignalWindow = Pick<Window, 'dataLayer' | 'uetq'>;

/**
 * The values as an Arguments object: `gtag()` pushes its `arguments`, and
 * gtag.js reads only those as commands (an array pushed instead is not).
 */
function argumentsOf(..._values: unknown[]): IArguments {
  // eslint-disable-next-line prefer-rest-params -- gtag.js reads a command only as an Arguments object
  return arguments;
}

function push(
  win: SignalWindow,
  command: 'default' | 'update',
  signal: ConsentSignal,
): void {
  // Google Consent Mode v2: the four types, all one value.
  (win.dataLayer ??= []).push(
    argumentsOf('consent', command, {
      ad_storage: signal,
      ad_user_data: signal,
      ad_personalization: signal,
      analytics_storage: signal,
    }),
  );
  // Microsoft UET consent mode: `uetq.push('consent', 'default', {…})`.
  (win.uetq ??= []).push('consent', command, { ad_storage: signal });
}

/**
 * Pushes the consent defaults. The inline script calls this, before any
 * other script has run (src/inputCapture/inlineScript.ts); the app calls
 * {@link signalConsentDefault}.
 *
 * @param signal `granted` when a current accept is stored, else `denied`
 */
export function pushConsentDefault(
  win: SignalWindow,
  signal: ConsentSignal,
): void {
  push(win, 'default', signal);
}

/**
 * Pushes the consent defaults, once per page: a second call does nothing
 * (the inline script pushes them; the app calls this too, for a page served
 * without the inline script, as in `npm run dev`).
 *
 * @param signal `granted` when a current accept is stored, else `denied`
 */
export function signalConsentDefault(
  win: SignalWindow,
  signal: ConsentSignal,
): void {
  const pushed = (win.dataLayer ?? []).some((entry) => {
    const command = entry as ArrayLike<unknown> | null;
    return command?.[0] === 'consent' && command[1] === 'default';
  });
  if (!pushed) pushConsentDefault(win, signal);
}

/**
 * Pushes a consent update after a choice: `granted` for an accept (before
 * the tag loads), `denied` for a reject (before it is removed).
 */
export function signalConsentUpdate(
  win: SignalWindow,
  signal: ConsentSignal,
): void {
  push(win, 'update', signal);
}

/**
 * The value of the cookie `name` in a `document.cookie` string, undefined
 * when there is none (RFC 6265 §5.4: `name=value` pairs joined by `; `).
 * The inline script reads the stored choice with this instead of js-cookie.
 */
export function cookieValue(cookies: string, name: string): string | undefined {
  for (const pair of cookies.split(';')) {
    const equals = pair.indexOf('=');
    if (equals > 0 && pair.slice(0, equals).trim() === name) {
      return pair.slice(equals + 1).trim();
    }
  }
  return undefined;
}
