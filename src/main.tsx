/**
 * The entry point: starts the page (src/app.tsx) with the browser's globals
 * and renders it. In development, `?inspect` in the address attaches
 * Stately's inspector to both actors.
 *
 * The built index.html carries the page prerendered in its default state
 * (scripts/build.ts): no prefill, no consent stored, no modal. Its shell
 * (src/PageShell.tsx) is static; the form in it is hydrated, so React
 * adopts the markup the visitor may already be typing into: the first
 * render equals the prerender (input values are not compared), and what
 * was typed reaches the machine through src/signUp/views/capturedInput.ts. The
 * consent settings link and modal are rendered into their empty slots. The
 * development server (`npm run dev`) has no prerender: there the whole page
 * is rendered afresh.
 */
import { startTransition, StrictMode, type ReactElement } from 'react';
import { createRoot, hydrateRoot, type RootOptions } from 'react-dom/client';
import type { InspectionEvent } from 'xstate';
import { startConsentStep, startSignUpStep, type AppEnvironment } from './app';
import { config } from './platform/env';
import { SLOTS } from './PageShell';

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
 * Resolves in a later task (a `setTimeout` of 0 ms), so that the browser
 * can handle input and paint in between: the page starts in several short
 * tasks instead of one long one (Total Blocking Time counts each task's
 * time over 50 ms). Measured at 4x CPU slowdown (docs/performance.md,
 * "After the paint: the page starts in short tasks"): starting both actors
 * and creating the three roots was one task of about 127 ms; in these
 * steps, the longest is 55 to 80 ms.
 */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

// Read before startConsentStep takes the parameters out of the address bar.
const search = window.location.search;
await nextTask();
const env: AppEnvironment = {
  config,
  search,
  hostname: window.location.hostname,
  origin: window.location.origin,
  document,
  replaceAddress: (path) =>
    window.history.replaceState(window.history.state, '', path),
  navigate: (path) => window.location.assign(path),
  storage: () => window.sessionStorage,
  inspect: await developmentInspector(),
};
const consentStep = startConsentStep(env);
await nextTask();
const { form, settings, modal, reporter } = startSignUpStep(env, consentStep);

// R7.4 (docs/requirements.md), ADR-0037: exceptions nobody
// handled are reported (when configured).
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
const strict = (element: ReactElement) => <StrictMode>{element}</StrictMode>;
const slot = (id: string) => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`index.html has no #${id} element`);
  return element;
};

if (process.env.NODE_ENV === 'production') {
  // ADR-0072: the prerendered shell (scripts/build.ts) holds the form, which is
  // hydrated, and two empty slots, which are rendered. Hydration scheduled
  // as a transition renders in slices of a few milliseconds and yields to
  // the browser between them, so adopting the prerendered form is no long
  // task (Total Blocking Time); outside one, React hydrates it in one task.
  //
  // Each root starts in a task of its own (nextTask). Until the form's
  // hydration commits, the inline script still holds a submit and the DOM
  // keeps what is typed (src/signUp/views/capturedInput.ts).
  await nextTask();
  startTransition(() => {
    hydrateRoot(slot(SLOTS.form), strict(form), options);
  });
  await nextTask();
  createRoot(slot(SLOTS.settings), options).render(strict(settings));
  await nextTask();
  createRoot(slot(SLOTS.modal), options).render(strict(modal));
} else {
  // The development server serves index.html as it is: the whole page is
  // rendered here.
  const { PageShell } = await import('./PageShell');
  document.title = `Create your ${config.productName} account`;
  createRoot(slot('root'), options).render(
    strict(
      <PageShell
        productName={config.productName}
        form={form}
        settings={settings}
        modal={modal}
      />,
    ),
  );
}
