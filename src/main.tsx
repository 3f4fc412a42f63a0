/**
 * The entry point: reads the address and the configuration, remembers the
 * campaign, wires the real effects (HTTP client, cookies, navigation, the
 * tracking tag) into the two machines, and renders the page.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createActor, fromPromise } from 'xstate';
import { consentMachine, type StoredChoice } from '../machines/consentMachine';
import {
  signUpMachine,
  type Session,
  type SignUpRequest,
} from '../machines/signUpMachine';
import { createCookieJar } from './cookies';
import { config } from './env';
import { readAddressParameters } from './prefill';
import { createSignUpClient } from './signUpClient';
import { loadTrackingTag, removeTrackingTag } from './trackingTag';
import { SignUpPage } from './views/SignUpPage';

const address = readAddressParameters(window.location.search);
// Spec section 2: once read, the parameters leave the address bar.
window.history.replaceState(window.history.state, '', '/signup');

const cookies = createCookieJar({
  productName: config.productName,
  cookieDomain: config.cookieDomain,
  hostname: window.location.hostname,
});
// DECISIONS.md: the address's campaign is written on load (last touch wins);
// the payload carries the cookie's value, or the address's where cookies
// are blocked.
if (address.utmCampaign) cookies.writeCampaign(address.utmCampaign);
const utmCampaign = cookies.readCampaign() ?? address.utmCampaign;

// Started here, once, rather than in a React effect: under StrictMode an
// effect runs twice, and the tag must load once.
const consent = createActor(
  consentMachine.provide({
    actions: {
      storeChoice: (_, choice: StoredChoice) => cookies.writeConsent(choice),
      loadTag: () => {
        if (config.trackingTagUrl) {
          loadTrackingTag(document, config.trackingTagUrl);
        }
      },
      removeTag: () => removeTrackingTag(document),
      deleteTagCookies: () => cookies.deleteTrackerCookies(),
    },
  }),
  {
    input: {
      storedChoice: cookies.readConsent(),
      utmSource: address.utmSource,
    },
  },
).start();

const submit = createSignUpClient({ apiOrigin: config.apiOrigin });

const machine = signUpMachine.provide({
  actors: {
    submitSignUp: fromPromise<Session, SignUpRequest>(({ input }) =>
      submit(input),
    ),
  },
  actions: {
    setLoginCookies: (_, session: Session) => cookies.setLoginCookies(session),
    // DECISIONS.md: `/` is the product's app, outside this page.
    navigateHome: () => window.location.assign('/'),
  },
});

document.title = `Create your ${config.productName} account`;
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <SignUpPage
      machine={machine}
      input={{ values: address.values, utmCampaign }}
      consent={consent}
      productName={config.productName}
      recaptchaSiteKey={config.recaptchaSiteKey}
    />
  </StrictMode>,
);
