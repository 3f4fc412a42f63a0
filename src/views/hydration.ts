/**
 * Hydration-safe rendering. The HTML carries the page prerendered in its
 * default state (scripts/build.ts); the first client render must produce
 * the same markup so that React adopts it (keeping what the visitor typed
 * and where their focus is) instead of replacing it.
 */
import { useSyncExternalStore } from 'react';

const neverChanges = () => () => {};

/**
 * @returns false while React renders the server's markup (the prerender,
 *   and the hydration render that adopts it), true in every render after
 *   it, and in a render with no markup to adopt (`createRoot`)
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    neverChanges,
    () => true,
    () => false,
  );
}
