/**
 * The entry point: starts the page (src/app.tsx) with the browser's globals
 * and renders it. In development, `?inspect` in the address attaches
 * Stately's inspector to both actors.
 *
 * The built index.html carries the page prerendered in its default state
 * (scripts/build.ts): no prefill, no consent stored, no modal. When the
 * visit starts in that state the markup is hydrated; otherwise (a prefill
 * from the address, `utm_source` opening the modal, a stored choice showing
 * "Cookie settings") the first render would differ from it, so the page is
 * rendered afresh into the same container instead, with no mismatch.
 */
import { StrictMode } from 'react';
import { createRoot, hydrateRoot, type RootOptions } from 'react-dom/client';
import type { InspectionEvent } from 'xstate';
import { startSignUpApp } from './app';
import { config } from './env';
import { readAddressParameters } from './prefill';
import { choiceOf, type ConsentActor } from './views/ConsentDialog';

async function developmentInspector(): Promise<
  ((event: InspectionEvent) => void) | undefined
> {
  if (
    process.env.NODE_ENV === 'production' ||
    !new URLSearchParams(window.location.search).has('inspect')
  ) {
    return undefined;
  }
  const { createBrowserInspector } = await import('@statelyai/inspect');
  return createBrowserInspector().inspect.next;
}

/**
 * Whether the page's first render equals the prerendered default: nothing
 * prefilled from the address, no consent choice stored, the modal closed.
 */
function startsInDefaultState(search: string, consent: ConsentActor): boolean {
  const snapshot = consent.getSnapshot();
  return (
    Object.keys(readAddressParameters(search).values).length === 0 &&
    choiceOf(snapshot) === 'unset' &&
    !snapshot.hasTag('modal')
  );
}

// Read before startSignUpApp takes the parameters out of the address bar.
const search = window.location.search;
// Yield once between evaluating the bundle and starting the page: two
// shorter tasks instead of one long one (the browser can handle input and
// paint between them; Total Blocking Time).
await new Promise((resolve) => setTimeout(resolve, 0));
const { element, reporter, consent } = startSignUpApp({
  config,
  search,
  hostname: window.location.hostname,
  origin: window.location.origin,
  document,
  replaceAddress: (path) =>
    window.history.replaceState(window.history.state, '', path),
  navigate: (path) => window.location.assign(path),
  inspect: await developmentInspector(),
});

document.title = `Create your ${config.productName} account`;
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
// Spec section 7: exceptions nobody handled are reported (when configured).
window.addEventListener('error', (event) =>
  reporter.reportException(event.error),
);
window.addEventListener('unhandledrejection', (event) =>
  reporter.reportException(event.reason),
);
const options: RootOptions = {
  onUncaughtError: (error) => reporter.reportException(error),
  onCaughtError: (error) => reporter.reportException(error),
  // A hydration mismatch React recovered from: a bug of the prerender.
  onRecoverableError: (error) => reporter.reportException(error),
};
const page = <StrictMode>{element}</StrictMode>;
if (root.firstElementChild && startsInDefaultState(search, consent)) {
  hydrateRoot(root, page, options);
} else {
  // React empties the container (the prerendered default) on first commit.
  createRoot(root, options).render(page);
}
