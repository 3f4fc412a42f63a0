/**
 * Keeping a layout change away from a pointer press under way (ADR-0054:
 * the e-mail suggestion is advice, never in the way of a
 * sign-up).
 *
 * A press moves focus on its `mousedown` (for touch, the compatibility
 * `mousedown` after `touchend`), but its `click` goes to the element under
 * the pointer when the button is released. Whatever a `blur` handler
 * inserts above the pressed control moves that control from under the
 * pointer, and the press does nothing: "Did you mean …?" appearing above
 * "Create account" swallowed the click that blurred the e-mail field.
 */
import { useEffect, useRef } from 'react';

/** What starts a press, seen in the capture phase before any blur it causes. */
const PRESSES = ['pointerdown', 'mousedown'] as const;
/** What ends one: its release, a cancelled pointer, the end of a drag. */
const RELEASES = ['pointerup', 'mouseup', 'pointercancel', 'dragend'] as const;

/**
 * @returns `afterPress(run)`: runs `run` at once, unless a pointer press is
 *   under way (pressed, not yet released); then in a task after the
 *   release, which is after the press's `click`: its target is fixed by
 *   then, so the layout may change. The window losing focus ends a press
 *   too (its release may never come).
 */
export function useAfterPress(): (run: () => void) => void {
  const press = useRef({ down: false, held: [] as (() => void)[] });
  useEffect(() => {
    const state = press.current;
    const timers = new Set<number>();
    const down = () => {
      state.down = true;
    };
    const release = () => {
      state.down = false;
      const held = state.held.splice(0);
      if (held.length === 0) return;
      // `mouseup` and `click` are dispatched in one task: a timer runs
      // after both.
      const timer = window.setTimeout(() => {
        timers.delete(timer);
        for (const run of held) run();
      }, 0);
      timers.add(timer);
    };
    for (const type of PRESSES) window.addEventListener(type, down, true);
    for (const type of RELEASES) window.addEventListener(type, release, true);
    // Not in the capture phase: an element's blur, which does not bubble,
    // never reaches this listener; the window's own does.
    window.addEventListener('blur', release);
    return () => {
      for (const type of PRESSES) window.removeEventListener(type, down, true);
      for (const type of RELEASES) {
        window.removeEventListener(type, release, true);
      }
      window.removeEventListener('blur', release);
      for (const timer of timers) window.clearTimeout(timer);
      state.down = false;
      state.held.length = 0;
    };
  }, []);
  return (run) => {
    if (press.current.down) press.current.held.push(run);
    else run();
  };
}
