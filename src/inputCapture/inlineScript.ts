/**
 * The inline script's entry (ADR-0116):
 * scripts/build.ts bundles this module with esbuild into one minified
 * classic script, with the build's values for {@link BUILD} (esbuild's
 * `define`), and inlines it in the prerendered index.html. It starts the
 * input capture (./inputCapture.ts) on the sign-up form; the work that waits
 * for the first paint but must run before any other script is the ad
 * networks' consent default (ADR-0066,
 * ADR-0102), read from the consent cookies as
 * the consent machine reads them.
 */
import { decodeChoice } from '../../contract/consentChoice';
import { storedRevisionOf } from '../../machines/consentRevision';
// Two small modules of consent/, not its index: esbuild, which bundles
// this script on its own, would carry the index's wiring, React and xstate
// with it (measured: 56 KB instead of 2.9 KB).
import { consentDefaultFrom } from '../consent/consentDefault';
import { cookieValue, pushConsentDefault } from '../consent/consentSignals';
import { SIGN_UP_FORM_ID, startInputCapture } from './inputCapture';

/** The build's values, written in by esbuild's `define` (scripts/build.ts). */
declare const BUILD: {
  /** The URL of the app's module script. */
  appScript: string;
  /** The draft's `sessionStorage` key (./draft.ts `draftKey`). */
  draftKey: string;
  /** `{product}_COOKIE_CONSENT` and `{product}_CONSENT_REVISION`. */
  consentCookie: string;
  revisionCookie: string;
  /** `CONSENT_REVISION`. */
  consentRevision: number;
};

startInputCapture(
  window,
  SIGN_UP_FORM_ID,
  BUILD.appScript,
  BUILD.draftKey,
  () => {
    const cookies = document.cookie;
    // No other script has run: the queues hold no default yet.
    pushConsentDefault(
      window,
      consentDefaultFrom({
        storedChoice: decodeChoice(cookieValue(cookies, BUILD.consentCookie)),
        storedRevision: storedRevisionOf(
          cookieValue(cookies, BUILD.revisionCookie),
        ),
        revision: BUILD.consentRevision,
      }),
    );
  },
);
