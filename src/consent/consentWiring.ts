/**
 * The consent machine's wiring (ADR-0116):
 * starts the consent actor with the visit's stored choice, its Global
 * Privacy Control and its `utm_source`, and provides the machine's named
 * effects (store the choice, signal it to the ad networks, record its
 * proof, load or remove the tag and its cookies). src/app.tsx calls it.
 */
import { createActor, type InspectionEvent } from 'xstate';
import {
  consentMachine,
  type ConsentSignal,
  type RecordedChoice,
  type StoredChoice,
} from '../../machines/consentMachine';
import type { AppConfig } from '../../common/config';
import { chunkLoader } from '../platform/chunkLoader';
import {
  cookieDomainFor,
  type CookieJar,
  type CookieJarOptions,
} from '../platform/cookies';
import { consentDefaultFrom } from './consentDefault';
import { createConsentRecorder } from './consentRecorder';
import {
  sendsGpc,
  signalConsentDefault,
  signalConsentUpdate,
} from './consentSignals';
import type * as TagEffects from './tagEffects';
import type { ConsentActor } from './views/consentTypes';

/** What the consent wiring needs of the page (src/app.tsx `AppEnvironment`). */
export interface ConsentEnvironment {
  config: AppConfig;
  /** The page's `location.hostname`. */
  hostname: string;
  document: Document;
  /** The network; default the window's `fetch`. */
  fetch?: typeof fetch;
  /** Receives the actor's inspection events. */
  inspect?: (event: InspectionEvent) => void;
}

/**
 * Starts the consent actor, once, outside React: under StrictMode an
 * effect runs twice, and the tag must load once.
 *
 * @param cookies the page's cookie jar (src/platform/cookies.ts)
 * @param cookieScope the options it was made with
 * @param utmSource the address's `utm_source` (R4.11, ADR-0031)
 */
export function startConsent(
  env: ConsentEnvironment,
  cookies: CookieJar,
  cookieScope: CookieJarOptions,
  utmSource: string | undefined,
): ConsentActor {
  const { config } = env;
  // ADR-0076: the tag's effects are a chunk, fetched when a choice is stored or
  // made; their order is kept (one module, callbacks in turn). Offline, the
  // tag does not load, and its cookies go on the next visit (ADR-0033).
  const tagEffects = chunkLoader(() => import('./tagEffects'));
  const tag = (effect: (effects: typeof TagEffects) => void) => {
    tagEffects().then(effect, () => {});
  };
  const stored = {
    storedChoice: cookies.readConsent(),
    storedRevision: cookies.readConsentRevision(),
    revision: config.consentRevision,
  };
  const win = env.document.defaultView;
  // ADR-0066: the built page's inline script pushed the ad networks' consent
  // defaults before any other script; the development server serves no
  // inline script, so the app pushes them there. A window-less document
  // (the prerender) has no queues.
  if (process.env.NODE_ENV !== 'production' && win) {
    signalConsentDefault(win, consentDefaultFrom(stored));
  }
  // ADR-0068: each choice's proof goes to the service; one an earlier page
  // could not send goes now.
  const recorder = createConsentRecorder({
    pendingKey: `${config.productName}_CONSENT_PENDING`,
    ...(win && { storage: () => win.localStorage }),
    fetch: env.fetch ?? win?.fetch.bind(win),
  });
  if (win) recorder.sendPending();
  return createActor(
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
        utmSource,
        // ADR-0073: the prerender has no window, and renders no choice anyway.
        gpcSignal: !!win && sendsGpc(win),
      },
      inspect: env.inspect,
    },
  ).start();
}
