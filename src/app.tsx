/**
 * Wires the page together: reads the address, remembers the campaign,
 * starts the consent actor, and provides the sign-up machine with the real
 * effects (HTTP client, cookies, navigation, the tracking tag). The entry
 * point (`src/main.tsx`) calls it with the browser's globals; the UI-level
 * model-based tests call it with jsdom's and a fake network.
 */
import type { ReactElement } from 'react';
import { createActor, fromPromise, type InspectionEvent } from 'xstate';
import {
  choiceIsCurrent,
  consentMachine,
  type ConsentSignal,
  type RecordedChoice,
  type StoredChoice,
} from '../machines/consentMachine';
import { signUpMachine } from '../machines/signUpMachine';
import {
  type Failure,
  type Session,
  type SignUpRequest,
} from '../machines/signUpContract';
import type { AppConfig } from '../common/config';
import type { HostRule } from '../common/asciiHost';
import { signUpRuleActions } from '../common/signUpRuleActions';
import { siteUrlNeedsIdnRule } from '../common/validation';
import { createConsentRecorder } from './consentRecorder';
import { signalConsentDefault, signalConsentUpdate } from './consentSignals';
import { createCookieJar } from './cookies';
import { draftKey, type DraftPlace } from './draft';
import { createErrorReporter, type ErrorReporter } from './errorReporting';
import { createHostRuleLoader, type ImportHostRule } from './hostRuleLoader';
import { readAddressParameters } from './prefill';
import { createSignUpClient } from './signUpClient';
import { loadTrackingTag, removeTrackingTag } from './trackingTag';
import { SignUpPage } from './views/SignUpPage';
import type { ConsentActor } from './views/consentView';

export interface AppEnvironment {
  config: AppConfig;
  /** The page's `location.search`, `location.hostname`, `location.origin`. */
  search: string;
  hostname: string;
  origin: string;
  document: Document;
  /** Rewrites the address bar (`history.replaceState`). */
  replaceAddress: (path: string) => void;
  /** A full navigation (`location.assign`). */
  navigate: (path: string) => void;
  /**
   * The tab's storage for the sign-up draft (D55): `() =>
   * window.sessionStorage`, whose getter may throw. Absent (the prerender,
   * tests that keep no draft): no draft is written.
   */
  storage?: () => Storage;
  /** The network; default the global `fetch`. */
  fetch?: typeof fetch;
  /** Fetches the UTS #46 host rule's chunk; default a dynamic `import()`. */
  importHostRule?: ImportHostRule;
  /** Receives the inspection events of both actors (Stately's inspector, tests). */
  inspect?: (event: InspectionEvent) => void;
}

export interface SignUpApp {
  element: ReactElement;
  consent: ConsentActor;
  /** Where unexpected failures and exceptions go (R7.4; D37). */
  reporter: ErrorReporter;
}

/**
 * @returns the page's element (render it inside StrictMode) and the running
 *   consent actor
 */
export function startSignUpApp(env: AppEnvironment): SignUpApp {
  const { config } = env;
  const reporter = createErrorReporter(config.sentryDsn, env.origin);
  const address = readAddressParameters(env.search);
  // R2.6 (docs/requirements.md), D8: once read, the parameters leave the
  // address bar.
  env.replaceAddress('/signup');

  const cookies = createCookieJar({
    productName: config.productName,
    cookieDomain: config.cookieDomain,
    hostname: env.hostname,
  });
  // D9 (docs/decisions.md): the address's campaign is written on load (last
  // touch wins); the payload carries the cookie's value, or the address's where
  // cookies are blocked. Both pass the campaign rule (keptCampaign, in the
  // prefill and the cookie jar), the API's too, so no campaign blocks a
  // sign-up.
  if (address.utmCampaign) cookies.writeCampaign(address.utmCampaign);
  const utmCampaign = cookies.readCampaign() ?? address.utmCampaign;

  // D66: the early script pushed the ad networks' consent defaults before
  // any other script; this pushes them only where it did not run (npm run
  // dev). A window-less document (the prerender) has no queues.
  const stored = {
    storedChoice: cookies.readConsent(),
    storedRevision: cookies.readConsentRevision(),
    revision: config.consentRevision,
  };
  const win = env.document.defaultView;
  if (win) {
    // D67: an accept stored under an older policy counts as none.
    const granted =
      stored.storedChoice === 'accepted' && choiceIsCurrent(stored);
    signalConsentDefault(win, granted ? 'granted' : 'denied');
  }
  // D68: each choice's proof goes to the service; one an earlier page could
  // not send goes now.
  const recorder = createConsentRecorder({
    apiOrigin: config.apiOrigin,
    pendingKey: `${config.productName}_CONSENT_PENDING`,
    ...(win && {
      storage: () => win.localStorage,
      // Where the browser has none, the call throws: fetch takes over.
      sendBeacon: (url: string, body: BodyInit) =>
        win.navigator.sendBeacon(url, body),
    }),
    fetch: env.fetch ?? win?.fetch.bind(win),
  });
  if (win) recorder.sendPending();
  // Started here, once, rather than in a React effect: under StrictMode an
  // effect runs twice, and the tag must load once.
  const consent = createActor(
    consentMachine.provide({
      actions: {
        storeChoice: (_, choice: StoredChoice) =>
          cookies.writeConsent(choice, config.consentRevision),
        signalConsent: (_, signal: ConsentSignal) => {
          if (win) signalConsentUpdate(win, signal);
        },
        recordChoice: (_, { choice, source }: RecordedChoice) =>
          recorder.record({
            consentId: cookies.consentId(),
            choice,
            revision: config.consentRevision,
            source,
            path: env.document.location.pathname,
          }),
        loadTag: () => {
          if (config.trackingTagUrl) {
            loadTrackingTag(env.document, config.trackingTagUrl);
          }
        },
        removeTag: () => removeTrackingTag(env.document),
        deleteTagCookies: () => cookies.deleteTrackerCookies(),
      },
    }),
    {
      input: { ...stored, utmSource: address.utmSource },
      inspect: env.inspect,
    },
  ).start();

  // D55: the form writes its values to the tab's draft. The early script
  // (src/earlyScript.ts) fills the prerendered form from it, and what the
  // form holds at hydration reaches the machine as typing before it would
  // (src/views/earlyInput.ts): the draft, under any prefill of the address.
  const draft: DraftPlace | undefined = env.storage && {
    storage: env.storage,
    key: draftKey(config.productName),
  };

  const submit = createSignUpClient({
    apiOrigin: config.apiOrigin,
    fetch: env.fetch,
  });
  // D58: the UTS #46 host rule is a chunk, fetched when the site URL first
  // needs it; a failed fetch is tried again by the next submit (D59).
  const loadHostRule = createHostRuleLoader(env.importHostRule);
  const machine = signUpMachine.provide({
    actors: {
      submitSignUp: fromPromise<Session, SignUpRequest>(({ input }) =>
        submit(input),
      ),
      loadHostRule: fromPromise<HostRule>(loadHostRule),
    },
    actions: {
      ...signUpRuleActions,
      prefetchHostRule: ({ context }) => {
        if (siteUrlNeedsIdnRule(context.values.url)) {
          loadHostRule().catch(() => {
            // Nothing to say yet: a submit tries again and says it (D59).
          });
        }
      },
      setLoginCookies: (_, session: Session) =>
        cookies.setLoginCookies(session),
      // D7 (docs/decisions.md): `/` is the product's app, outside this page.
      navigateHome: () => env.navigate('/'),
      reportFailure: (_, failure: Failure) => reporter.reportFailure(failure),
    },
  });

  return {
    consent,
    reporter,
    element: (
      <SignUpPage
        machine={machine}
        input={{ values: address.values, utmCampaign }}
        draft={draft}
        inspect={env.inspect}
        consent={consent}
        productName={config.productName}
        recaptchaSiteKey={config.recaptchaSiteKey}
      />
    ),
  };
}
