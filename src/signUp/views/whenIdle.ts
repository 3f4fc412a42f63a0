/**
 * Deferring work off the critical path: until the visitor first interacts
 * with an element, or the browser is idle, whichever comes first.
 */

/** Longest wait for an idle period before the callback runs anyway. */
export const IDLE_TIMEOUT_MS = 2000;
/** Where `requestIdleCallback` is missing (Safari, jsdom): a short delay. */
export const IDLE_FALLBACK_MS = 200;

const INTERACTIONS = ['focusin', 'pointerdown', 'keydown'] as const;

/**
 * Runs `callback` once: on the first focus, pointer press or key press
 * inside `element`, or when the browser is idle (`requestIdleCallback`
 * with a {@link IDLE_TIMEOUT_MS} deadline, else a {@link IDLE_FALLBACK_MS}
 * timer), whichever comes first.
 *
 * @returns a function that cancels it (for an effect's cleanup)
 */
export function whenIdleOrInteracted(
  element: HTMLElement,
  callback: () => void,
): () => void {
  let done = false;
  const run = () => {
    if (done) return;
    cancel();
    callback();
  };
  const idle =
    typeof window.requestIdleCallback === 'function'
      ? window.requestIdleCallback(run, { timeout: IDLE_TIMEOUT_MS })
      : undefined;
  const timer =
    idle === undefined ? window.setTimeout(run, IDLE_FALLBACK_MS) : undefined;
  for (const type of INTERACTIONS) {
    element.addEventListener(type, run, { capture: true, passive: true });
  }
  function cancel() {
    done = true;
    if (idle !== undefined) window.cancelIdleCallback(idle);
    if (timer !== undefined) window.clearTimeout(timer);
    for (const type of INTERACTIONS) {
      element.removeEventListener(type, run, { capture: true });
    }
  }
  return cancel;
}
