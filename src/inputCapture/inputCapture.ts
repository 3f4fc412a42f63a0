/**
 * The input capture: the page's one inline script (scripts/build.ts
 * bundles it, from its entry ./inlineScript.ts, at the end of the
 * prerendered index.html's body; the Content-Security-Policy allows it by
 * its SHA-256 hash). It runs before any other script, while the visitor
 * can already see and use the prerendered form:
 *
 * - A submit of the sign-up form before the app runs is held, not sent:
 *   the browser's own submission would reload the page and lose what was
 *   typed. The app carries the held submit out once its machine runs
 *   (src/signUp/views/capturedInput.ts).
 * - The app's module script is started after the first contentful paint,
 *   so its download and evaluation never compete with it.
 * - With a draft key (ADR-0055, src/inputCapture/draft.ts): once the first
 *   paint is recorded, the stored draft fills the prerendered inputs the
 *   visitor has not typed into and the address does not prefill; until the app
 *   takes over, every edit of the form is saved as the draft.
 *
 * Before the first paint it does only what cannot wait: it installs the
 * submit hold, the draft's saving and the paint observer. Whatever reads
 * storage (the draft, the consent cookies its entry's `beforeApp` reads)
 * runs once the first paint is recorded, just before the app's script is
 * added, so no other script runs before it (issue 38, ADR-0102).
 */
import {
  addressNames,
  DRAFT_CHECKBOX_FIELDS,
  DRAFT_TEXT_FIELDS,
  readDraft,
  writeDraft,
  type DraftPlace,
} from './draft';

/** The sign-up form's id: a test selector that tests and tools rely on. */
export const SIGN_UP_FORM_ID = 'signup-form';

/** The hand-over from the inline script to the app. */
export interface HeldSubmit {
  /**
   * Stops holding submits and saving the draft: from now on the app
   * handles both.
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
 * `win.vigilHeldSubmit`; when `draftKey` is given, saves the draft from now
 * on ({@link keepDraft}). Once the first contentful paint is recorded
 * (Paint Timing; where that is not supported, in a task after the next
 * frame), or after {@link APP_START_FALLBACK_MS}, whichever comes first, and
 * once only: calls `beforeApp`, restores the draft (once the form is
 * parsed), then appends `appScript`, when given, as a module script.
 *
 * @param formId the id of the form whose submits are held
 * @param appScript the URL of the app's module script
 * @param draftKey the draft's `sessionStorage` key (src/inputCapture/draft.ts `draftKey`)
 * @param beforeApp work that may wait for the first paint but must run
 *   before any other script (the consent defaults, ADR-0066)
 */
export function startInputCapture(
  win: Window,
  formId: string,
  appScript?: string,
  draftKey?: string,
  beforeApp?: () => void,
): void {
  const { document } = win;
  const draft = draftKey
    ? keepDraft(win, formId, {
        storage: () => win.sessionStorage,
        key: draftKey,
      })
    : { restore: () => {}, stop: () => {} };
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
      draft.stop();
      const submitted = held;
      held = false;
      return submitted;
    },
  };
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    beforeApp?.();
    // The header can paint before the form is parsed.
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', draft.restore, {
        once: true,
      });
    } else {
      draft.restore();
    }
    if (appScript === undefined) return;
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

/** The draft's part of the inline script ({@link keepDraft}). */
export interface KeptDraft {
  /**
   * Fills each text input of the form that is still empty and that the
   * address does not name with the draft's non-empty value, and ticks each
   * box the draft ticks; does nothing once {@link KeptDraft.stop} ran.
   */
  restore(): void;
  /** Stops the saving, and any restore still to come (the app takes over). */
  stop(): void;
}

/**
 * The draft before the app runs (ADR-0055): saves the form's five values as the
 * draft on every `input` or `change` event inside the form, from now on,
 * and restores the draft when asked (the inline script asks once the first
 * paint is recorded, so reading `sessionStorage` never delays it). Storage
 * failures leave the form as it is (src/inputCapture/draft.ts).
 */
export function keepDraft(
  win: Window,
  formId: string,
  place: DraftPlace,
): KeptDraft {
  const { document } = win;
  const form = () => document.getElementById(formId);
  const input = (name: string) =>
    form()?.querySelector<HTMLInputElement>(`input[name="${name}"]`) ??
    undefined;
  let stopped = false;
  const restore = () => {
    if (stopped) return;
    const draft = readDraft(place);
    for (const field of DRAFT_TEXT_FIELDS) {
      const element = input(field);
      const value = draft[field];
      if (
        element &&
        value &&
        element.value === '' &&
        !addressNames(win.location.search, field)
      ) {
        element.value = value;
      }
    }
    for (const field of DRAFT_CHECKBOX_FIELDS) {
      const element = input(field);
      if (element && draft[field]) element.checked = true;
    }
  };
  const save = (event: Event) => {
    if (!(form()?.contains(event.target as Node | null) ?? false)) return;
    const text = (name: string) => input(name)?.value ?? '';
    const box = (name: string) => input(name)?.checked ?? false;
    writeDraft(place, {
      name: text('name'),
      email: text('email'),
      url: text('url'),
      newsletter: box('newsletter'),
      tos: box('tos'),
    });
  };
  document.addEventListener('input', save, true);
  document.addEventListener('change', save, true);
  return {
    restore,
    stop() {
      stopped = true;
      document.removeEventListener('input', save, true);
      document.removeEventListener('change', save, true);
    },
  };
}
