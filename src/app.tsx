/**
 * Starts the page (ADR-0116): reads the address,
 * makes the cookie jar and the error reporter, then wires each machine:
 * the consent's (src/consent/consentWiring.ts) and the sign-up's
 * (src/signUp/signUpWiring.tsx). The entry point (`src/main.tsx`) calls
 * it with the browser's globals; the prerender (scripts/build.ts) with no
 * window; the UI-level model-based tests with jsdom's and a fake network.
 */
import type { ReactElement } from 'react';
import type { AppConfig } from '../common/config';
// The order of these imports is the first load's module order, and Brotli
// reads the bundle as one text: this order measured 7,049 B above the
// stack floor in a clean build, others up to 7,206 B against ADR-0058's 7,168
// (tests/browser/budgets.test.ts). Measure before reordering.
import {
  createErrorReporter,
  type ErrorReporter,
} from './platform/errorReporting';
import { createCookieJar } from './platform/cookies';
import { readAddressParameters } from './signUp/prefill';
import { startConsent, type ConsentEnvironment } from './consent/consentWiring';
import { wireSignUp, type SignUpEnvironment } from './signUp/signUpWiring';
import {
  ConsentModal,
  ConsentSettingsLink,
  type ConsentActor,
} from './consent/views/consentView';

export interface AppEnvironment extends SignUpEnvironment, ConsentEnvironment {
  config: AppConfig;
  /** The page's `location.search`, `location.hostname`, `location.origin`. */
  search: string;
  hostname: string;
  origin: string;
  /** Rewrites the address bar (`history.replaceState`). */
  replaceAddress: (path: string) => void;
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
  /** Where unexpected failures and exceptions go (R7.4; ADR-0037). */
  reporter: ErrorReporter;
}

/** What {@link startConsentStep} leaves for {@link startSignUpStep}. */
export interface ConsentStep {
  reporter: ErrorReporter;
  address: ReturnType<typeof readAddressParameters>;
  cookies: ReturnType<typeof createCookieJar>;
  consent: ConsentActor;
}

/**
 * The page's first step: reads the address (and takes its parameters out
 * of the address bar), makes the error reporter and the cookie jar, and
 * starts the consent actor. The entry point runs it and
 * {@link startSignUpStep} in two tasks (Total Blocking Time:
 * docs/performance.md); {@link startSignUpApp} runs both at once.
 */
export function startConsentStep(env: AppEnvironment): ConsentStep {
  const { config } = env;
  const reporter = createErrorReporter(config.sentryDsn, env.origin);
  const address = readAddressParameters(env.search);
  // R2.6 (docs/requirements.md), ADR-0008: once read, the
  // parameters leave the address bar.
  env.replaceAddress('/signup');
  const cookieScope = {
    productName: config.productName,
    cookieDomain: config.cookieDomain,
    hostname: env.hostname,
  };
  const cookies = createCookieJar(cookieScope);
  const consent = startConsent(env, cookies, cookieScope, address.utmSource);
  return { reporter, address, cookies, consent };
}

/**
 * The page's second step: starts the sign-up actor and returns what the
 * page renders.
 *
 * @param step what {@link startConsentStep} returned for the same `env`
 */
export function startSignUpStep(
  env: AppEnvironment,
  { reporter, address, cookies, consent }: ConsentStep,
): SignUpApp {
  return {
    consent,
    reporter,
    form: wireSignUp(env, cookies, address, reporter),
    settings: <ConsentSettingsLink consent={consent} />,
    modal: (
      <ConsentModal consent={consent} productName={env.config.productName} />
    ),
  };
}

/**
 * Both steps at once: {@link startConsentStep}, then
 * {@link startSignUpStep}.
 *
 * @returns what the page renders (render each inside StrictMode), the
 *   running consent actor, and the error reporter
 */
export function startSignUpApp(env: AppEnvironment): SignUpApp {
  return startSignUpStep(env, startConsentStep(env));
}
