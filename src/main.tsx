/**
 * The entry point: starts the page (src/app.tsx) with the browser's globals
 * and renders it. In development, `?inspect` in the address attaches
 * Stately's inspector to both actors.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { InspectionEvent } from 'xstate';
import { startSignUpApp } from './app';
import { config } from './env';

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

const { element, reporter } = startSignUpApp({
  config,
  search: window.location.search,
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
createRoot(root, {
  onUncaughtError: (error) => reporter.reportException(error),
  onCaughtError: (error) => reporter.reportException(error),
}).render(<StrictMode>{element}</StrictMode>);
