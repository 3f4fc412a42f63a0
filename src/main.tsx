/**
 * The entry point: reads the address and the configuration, wires the real
 * effects (HTTP client, cookies, navigation) into the sign-up machine, and
 * renders the page.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { fromPromise } from 'xstate';
import {
  signUpMachine,
  type Session,
  type SignUpRequest,
} from '../machines/signUpMachine';
import { createCookieJar } from './cookies';
import { config } from './env';
import { readAddressParameters } from './prefill';
import { createSignUpClient } from './signUpClient';
import { SignUpPage } from './views/SignUpPage';

const address = readAddressParameters(window.location.search);
// Spec section 2: once read, the parameters leave the address bar.
window.history.replaceState(window.history.state, '', '/signup');

const cookies = createCookieJar({
  productName: config.productName,
  cookieDomain: config.cookieDomain,
  hostname: window.location.hostname,
});
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
      input={{ values: address.values, utmCampaign: address.utmCampaign }}
      productName={config.productName}
      recaptchaSiteKey={config.recaptchaSiteKey}
    />
  </StrictMode>,
);
