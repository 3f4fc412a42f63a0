/**
 * The sign-up machine's wiring (ADR-0116):
 * provides the machine with the page's effects (the rules' and the host
 * rule's chunks, the API client, the login cookies, the navigation, the
 * error reports) and renders the form with the address's prefill, the
 * campaign and the tab's draft. src/app.tsx calls it.
 */
import type { ReactElement } from 'react';
import { fromPromise, type InspectionEvent } from 'xstate';
import {
  signUpMachine,
  type FormToCheck,
  type FormVerdict,
} from '../../machines/signUpMachine';
import type { Failure, Session, SignUpRequest } from '../../contract/signUp';
import type { AppConfig } from '../../common/config';
import { draftKey, type DraftPlace } from '../inputCapture';
import { chunkLoader } from '../platform/chunkLoader';
import type { CookieJar } from '../platform/cookies';
import type { ErrorReporter } from '../platform/errorReporting';
import type * as HostRuleChunk from './hostRuleChunk';
import type { AddressParameters } from './prefill';
import type * as SubmitChunk from './submitChunk';
import { SignUpForm } from './views/SignUpForm';

/** What the sign-up wiring needs of the page (src/app.tsx `AppEnvironment`). */
export interface SignUpEnvironment {
  config: AppConfig;
  /** A full navigation (`location.assign`). */
  navigate: (path: string) => void;
  /**
   * The tab's storage for the sign-up draft (ADR-0055): `() =>
   * window.sessionStorage`, whose getter may throw. Absent (the prerender,
   * tests that keep no draft): no draft is written.
   */
  storage?: () => Storage;
  /** The network; default the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * Loads the submit chunk (ADR-0071); default: its file fetched, then imported
   * (src/platform/chunkLoader.ts).
   */
  importSubmitChunk?: () => Promise<typeof SubmitChunk>;
  /** Loads the UTS #46 host rule's chunk (ADR-0058); default as the submit chunk. */
  importHostRule?: () => Promise<typeof HostRuleChunk>;
  /** Receives the actor's inspection events. */
  inspect?: (event: InspectionEvent) => void;
}

/**
 * @param cookies the page's cookie jar (src/platform/cookies.ts)
 * @param address the address's parameters (./prefill.ts), read once
 * @param reporter where unexpected failures go (R7.4; ADR-0037)
 * @returns the sign-up form, to hydrate over the prerendered one
 */
export function wireSignUp(
  env: SignUpEnvironment,
  cookies: CookieJar,
  address: AddressParameters,
  reporter: ErrorReporter,
): ReactElement {
  const { config } = env;
  // ADR-0009: the address's campaign is written on load (last
  // touch wins); the payload carries the cookie's value, or the address's where
  // cookies are blocked. Both pass the campaign rule (keptCampaign, in the
  // prefill and the cookie jar), the API's too, so no campaign blocks a
  // sign-up.
  if (address.utmCampaign) cookies.writeCampaign(address.utmCampaign);
  const utmCampaign = cookies.readCampaign() ?? address.utmCampaign;

  // ADR-0055: the form writes its values to the tab's draft. The inline script
  // (src/inputCapture/inputCapture.ts) fills the prerendered form from it, and what the
  // form holds at hydration reaches the machine as typing before it would
  // (src/signUp/views/capturedInput.ts): the draft, under any prefill of the address.
  const draft: DraftPlace | undefined = env.storage && {
    storage: env.storage,
    key: draftKey(config.productName),
  };

  // ADR-0071: the form's rules and the API client are a chunk, fetched once the
  // visitor starts typing (or the address prefills an e-mail or a site
  // URL); ADR-0058: the UTS #46 host rule is one, fetched when the site URL
  // first needs it. A failed fetch is tried again by the next submit
  // (ADR-0059).
  const loadSubmitChunk = env.importSubmitChunk
    ? chunkLoader(env.importSubmitChunk)
    : chunkLoader(
        () => import('./submitChunk'),
        new URL('./submitChunk.ts', import.meta.url),
      );
  const loadHostRuleChunk = env.importHostRule
    ? chunkLoader(env.importHostRule)
    : chunkLoader(
        () => import('./hostRuleChunk'),
        new URL('./hostRuleChunk.ts', import.meta.url),
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
            // Nothing to say yet: a submit tries again and says it (ADR-0059).
          });
      },
      setLoginCookies: (_, session: Session) =>
        cookies.setLoginCookies(session),
      // ADR-0007: `/` is the product's app, outside this page.
      navigateHome: () => env.navigate('/'),
      reportFailure: (_, failure: Failure) => reporter.reportFailure(failure),
    },
  });

  return (
    <SignUpForm
      machine={machine}
      input={{ values: address.values, utmCampaign }}
      latePrefill={latePrefill}
      draft={draft}
      inspect={env.inspect}
      productName={config.productName}
      recaptchaSiteKey={config.recaptchaSiteKey}
    />
  );
}
