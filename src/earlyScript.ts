/**
 * The page's one inline script (scripts/build.ts bundles it into the
 * prerendered index.html's `<head>`; the Content-Security-Policy allows it
 * by its SHA-256 hash). It runs before any other script, while the visitor
 * can already see and use the prerendered form:
 *
 * - A submit of the sign-up form before the app runs is held, not sent:
 *   the browser's own submission would reload the page and lose what was
 *   typed. The app carries the held submit out once its machine runs
 *   (src/views/earlyInput.ts).
 * - The app's module script is started after the first contentful paint,
 *   so its download and evaluation never compete with it.
 */

/** The sign-up form's id: a page hook that tests and tools rely on. */
export const SIGN_UP_FORM_ID = 'signup-form';

/** The hand-over from the inline script to the app. */
export interface HeldSubmit {
  /**
   * Stops holding submits: from now on the app handles them.
   *
   * @returns whether the visitor submitted the form before (true once:
   *   later calls return false)
   */
  release(): boolean;
}

declare global {
  interface Window {
    vigilHeldSubmit?: HeldSubmit;
  }
}

/**
 * Longest wait for the first paint before the app starts anyway: a page
 * opened in a background tab paints nothing until it is shown (ms).
 */
export const APP_START_FALLBACK_MS = 1000;

/**
 * Installs the submit hold on `win.document` and publishes it as
 * `win.vigilHeldSubmit`; when `appScript` is given, appends it as a module
 * script once the first contentful paint is recorded (Paint Timing;
 * where that is not supported, in a task after the next frame), or after
 * {@link APP_START_FALLBACK_MS}, whichever comes first.
 *
 * @param formId the id of the form whose submits are held
 * @param appScript the URL of the app's module script
 */
export function startEarlyScript(
  win: Window,
  formId: string,
  appScript?: string,
): void {
  const { document } = win;
  let held = false;
  const hold = (event: Event) => {
    if ((event.target as Element | null)?.id !== formId) return;
    event.preventDefault();
    held = true;
  };
  document.addEventListener('submit', hold, true);
  win.vigilHeldSubmit = {
    release() {
      document.removeEventListener('submit', hold, true);
      const submitted = held;
      held = false;
      return submitted;
    },
  };
  if (appScript === undefined) return;
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    const script = document.createElement('script');
    script.type = 'module';
    script.src = appScript;
    document.head.append(script);
  };
  const Observer = (
    win as Window & { PerformanceObserver?: typeof PerformanceObserver }
  ).PerformanceObserver;
  if (Observer?.supportedEntryTypes?.includes('paint')) {
    new Observer((entries, observer) => {
      if (entries.getEntriesByName('first-contentful-paint').length > 0) {
        observer.disconnect();
        start();
      }
    }).observe({ type: 'paint', buffered: true });
  } else {
    // A rAF callback runs just before a frame is painted; a task queued
    // from it runs after that paint.
    win.requestAnimationFrame(() => win.setTimeout(start, 0));
  }
  win.setTimeout(start, APP_START_FALLBACK_MS);
}
