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
  consentMachine,
  type ConsentSignal,
  type RecordedChoice,
  type StoredChoice,
} from '../machines/consentMachine';
import {
  signUpMachine,
  type FormToCheck,
  type FormVerdict,
} from '../machines/signUpMachine';
import {
  type Failure,
  type Session,
  type SignUpRequest,
} from '../contract/signUp';
import type { AppConfig } from '../common/config';
import { chunkLoader } from './platform/chunkLoader';
import type * as HostRuleChunk from './signUp/hostRuleChunk';
import type * as SubmitChunk from './signUp/submitChunk';
import { consentDefaultFrom } from './consent/consentDefault';
import { createConsentRecorder } from './consent/consentRecorder';
import {
  sendsGpc,
  signalConsentDefault,
  signalConsentUpdate,
} from './consent/consentSignals';
import { cookieDomainFor, createCookieJar } from './platform/cookies';
import { draftKey, type DraftPlace } from './early/draft';
import {
  createErrorReporter,
  type ErrorReporter,
} from './platform/errorReporting';
import { readAddressParameters } from './signUp/prefill';
import type * as TagEffects from './consent/tagEffects';
import { SignUpForm } from './signUp/views/SignUpForm';
import {
  ConsentModal,
  ConsentSettingsLink,
  type ConsentActor,
} from './consent/views/consentView';

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
  /**
   * Loads the submit chunk (D71); default: its file fetched, then imported
   * (src/platform/chunkLoader.ts).
   */
  importSubmitChunk?: () => Promise<typeof SubmitChunk>;
  /** Loads the UTS #46 host rule's chunk (D58); default as the submit chunk. */
  importHostRule?: () => Promise<typeof HostRuleChunk>;
  /** Receives the inspection events of both actors (Stately's inspector, tests). */
  inspect?: (event: InspectionEvent) => void;
}

/**
 * What the page renders into the slots of its shell (src/PageShell.tsx),
 * each inside StrictMode.
 */
export interface SignUpApp {
  /** The sign-up form: hydrated, over the prerendered one. */
  form: ReactElement;
  /** The "Cookie settings" link, in the footer. */
  settings: ReactElement;
  /** The consent modal, after the page. */
  modal: ReactElement;
  consent: ConsentActor;
  /** Where unexpected failures and exceptions go (R7.4; D37). */
  reporter: ErrorReporter;
}

/**
 * @returns what the page renders (render each inside StrictMode), the
 *   running consent actor, and the error reporter
 */
export function startSignUpApp(env: AppEnvironment): SignUpApp {
  const { config } = env;
  const reporter = createErrorReporter(config.sentryDsn, env.origin);
  const address = readAddressParameters(env.search);
  // R2.6 (docs/requirements.md), D8: once read, the parameters leave the
  // address bar.
  env.replaceAddress('/signup');

  const cookieScope = {
    productName: config.productName,
    cookieDomain: config.cookieDomain,
    hostname: env.hostname,
  };
  const cookies = createCookieJar(cookieScope);
  // D76: the tag's effects are a chunk, fetched when a choice is stored or
  // made; their order is kept (one module, callbacks in turn). Offline, the
  // tag does not load, and its cookies go on the next visit (D33).
  const tagEffects = chunkLoader(() => import('./consent/tagEffects'));
  const tag = (effect: (effects: typeof TagEffects) => void) => {
    tagEffects().then(effect, () => {});
  };
  // D9 (docs/decisions.md): the address's campaign is written on load (last
  // touch wins); the payload carries the cookie's value, or the address's where
  // cookies are blocked. Both pass the campaign rule (keptCampaign, in the
  // prefill and the cookie jar), the API's too, so no campaign blocks a
  // sign-up.
  if (address.utmCampaign) cookies.writeCampaign(address.utmCampaign);
  const utmCampaign = cookies.readCampaign() ?? address.utmCampaign;

  const stored = {
    storedChoice: cookies.readConsent(),
    storedRevision: cookies.readConsentRevision(),
    revision: config.consentRevision,
  };
  const win = env.document.defaultView;
  // D66: the built page's early script pushed the ad networks' consent
  // defaults before any other script; the development server serves no
  // early script, so the app pushes them there. A window-less document
  // (the prerender) has no queues.
  if (process.env.NODE_ENV !== 'production' && win) {
    signalConsentDefault(win, consentDefaultFrom(stored));
  }
  // D68: each choice's proof goes to the service; one an earlier page could
  // not send goes now.
  const recorder = createConsentRecorder({
    pendingKey: `${config.productName}_CONSENT_PENDING`,
    ...(win && { storage: () => win.localStorage }),
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
          const url = config.trackingTagUrl;
          if (url) tag((m) => m.loadTrackingTag(env.document, url));
        },
        removeTag: () => tag((m) => m.removeTrackingTag(env.document)),
        deleteTagCookies: () =>
          tag((m) =>
            m.deleteTrackerCookies(env.hostname, cookieDomainFor(cookieScope)),
          ),
      },
    }),
    {
      input: {
        ...stored,
        utmSource: address.utmSource,
        // D73: the prerender has no window, and renders no choice anyway.
        gpcSignal: !!win && sendsGpc(win),
      },
      inspect: env.inspect,
    },
  ).start();

  // D55: the form writes its values to the tab's draft. The early script
  // (src/early/earlyScript.ts) fills the prerendered form from it, and what the
  // form holds at hydration reaches the machine as typing before it would
  // (src/signUp/views/earlyInput.ts): the draft, under any prefill of the address.
  const draft: DraftPlace | undefined = env.storage && {
    storage: env.storage,
    key: draftKey(config.productName),
  };

  // D71: the form's rules and the API client are a chunk, fetched once the
  // visitor starts typing (or the address prefills an e-mail or a site
  // URL); D58: the UTS #46 host rule is one, fetched when the site URL
  // first needs it. A failed fetch is tried again by the next submit (D59).
  const loadSubmitChunk = env.importSubmitChunk
    ? chunkLoader(env.importSubmitChunk)
    : chunkLoader(
        () => import('./signUp/submitChunk'),
        new URL('./signUp/submitChunk.ts', import.meta.url),
      );
  const loadHostRuleChunk = env.importHostRule
    ? chunkLoader(env.importHostRule)
    : chunkLoader(
        () => import('./signUp/hostRuleChunk'),
        new URL('./signUp/hostRuleChunk.ts', import.meta.url),
      );
  const loadHostRule = () =>
    loadHostRuleChunk().then((chunk) => chunk.checkHostName);
  // R2.4: the address's e-mail and site URL are prefilled once the rules
  // accept them; offline, they are not.
  const { unchecked } = address;
  const latePrefill =
    Object.keys(unchecked).length === 0
      ? undefined
      : loadSubmitChunk().then(
          (chunk) => chunk.prefillOf(unchecked),
          () => ({}),
        );
  const machine = signUpMachine.provide({
    actors: {
      checkForm: fromPromise<FormVerdict, FormToCheck>(async ({ input }) => {
        const { judgeForm } = await loadSubmitChunk();
        return judgeForm(input, loadHostRule);
      }),
      // `submitting` follows `validating`, which had the chunk.
      submitSignUp: fromPromise<Session, SignUpRequest>(async ({ input }) => {
        const { createSignUpClient } = await loadSubmitChunk();
        return createSignUpClient({ fetch: env.fetch })(input);
      }),
    },
    actions: {
      prefetchRules: ({ context }) => {
        loadSubmitChunk()
          .then((chunk) =>
            chunk.siteUrlNeedsIdnRule(context.values.url)
              ? loadHostRule()
              : undefined,
          )
          .catch(() => {
            // Nothing to say yet: a submit tries again and says it (D59).
          });
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
    form: (
      <SignUpForm
        machine={machine}
        input={{ values: address.values, utmCampaign }}
        latePrefill={latePrefill}
        draft={draft}
        inspect={env.inspect}
        productName={config.productName}
        recaptchaSiteKey={config.recaptchaSiteKey}
      />
    ),
    settings: <ConsentSettingsLink consent={consent} />,
    modal: <ConsentModal consent={consent} productName={config.productName} />,
  };
}
