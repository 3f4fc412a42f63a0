// @vitest-environment jsdom
/**
 * Model-based tests, UI level: the same planned paths drive the real page
 * (src/app.tsx, React in jsdom). Events become what a visitor does (typing,
 * ticking, the fake captcha, Escape) or what the network answers (a fake
 * `fetch`); after every step the page must show what the model's state
 * calls for (harness/model/views.ts). Transitions are read from the
 * page's own actors through their inspection events.
 */
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import Cookies from 'js-cookie';
import { StrictMode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import {
  consentMachine,
  type ConsentEvent,
} from '../../machines/consentMachine';
import { signUpMachine } from '../../machines/signUpMachine';
import { startSignUpApp } from '../../src/app';
import { PageShell } from '../../src/PageShell';
import { readConfig } from '../../common/config';
import { removeTrackingTag } from '../../src/consent/trackingTag';
import { fakeRecaptchaScript } from '../../harness/page/fakeRecaptcha';
import {
  consentModel,
  describeConsentInput,
  MODEL_REVISION,
} from '../../harness/model/consentModel';
import { describePath } from '../../harness/model/modelRun';
import {
  SIGN_UP_STATES,
  expectedConsentRun,
  expectedSignUpRun,
} from '../../harness/model/reference';
import { planPaths, type PlannedPath } from '../../harness/model/planner';
import { heldNetwork, replyFor } from '../../harness/model/serverReplies';
import * as hostRuleChunk from '../../src/signUp/hostRuleChunk';
import * as submitChunk from '../../src/signUp/submitChunk';
import {
  MODEL_SESSION,
  signUpModel,
  type SignUpModelEvent,
} from '../../harness/model/signUpModel';
import {
  recordTransitions,
  reportCoverage,
  type TransitionRecord,
} from '../../harness/model/transitions';
import {
  expectedConsentView,
  expectedSignUpView,
  readConsentView,
  readSignUpView,
} from '../../harness/model/views';

const config = readConfig({
  TRACKING_TAG_URL: 'https://tags.example/tag.js',
  CONSENT_REVISION: String(MODEL_REVISION),
});

afterEach(() => {
  for (const name of Object.keys(Cookies.get())) {
    Cookies.remove(name, { path: '/' });
  }
  removeTrackingTag(document);
  // Each visit is a new page: the ad networks' queues start empty.
  delete window.dataLayer;
  delete window.uetq;
  localStorage.clear();
  // The browser's Global Privacy Control, as a visit set it (ADR-0073).
  Reflect.deleteProperty(navigator, 'globalPrivacyControl');
});

/** The chunks' fetches the page made, each waiting for the path's word. */
interface ChunkLoads {
  submit: PromiseWithResolvers<typeof submitChunk>[];
  hostRule: PromiseWithResolvers<typeof hostRuleChunk>[];
}

/** Renders the page as src/main.tsx does, with jsdom and a held network. */
async function renderPage(search: string) {
  const signUp = recordTransitions(signUpMachine.id);
  const consent = recordTransitions(consentMachine.id);
  const network = heldNetwork();
  // The chunks are held like the network, until the path says whether
  // they arrived (ADR-0058, ADR-0071) or not (ADR-0059).
  const chunkLoads: ChunkLoads = { submit: [], hostRule: [] };
  const navigations: string[] = [];
  const addresses: string[] = [];
  const app = startSignUpApp({
    config,
    search,
    hostname: window.location.hostname,
    origin: window.location.origin,
    document,
    replaceAddress: (path) => addresses.push(path),
    navigate: (path) => navigations.push(path),
    fetch: network.fetch,
    importSubmitChunk: () => {
      const load = Promise.withResolvers<typeof submitChunk>();
      chunkLoads.submit.push(load);
      return load.promise;
    },
    importHostRule: () => {
      const load = Promise.withResolvers<typeof hostRuleChunk>();
      chunkLoads.hostRule.push(load);
      return load.promise;
    },
    inspect: (event: InspectionEvent) => {
      signUp.inspect(event);
      consent.inspect(event);
    },
  });
  render(
    <StrictMode>
      <PageShell
        productName={config.productName}
        form={app.form}
        settings={app.settings}
        modal={app.modal}
      />
    </StrictMode>,
  );
  await loadFakeCaptcha();
  return {
    user: userEvent.setup(),
    network,
    chunkLoads,
    navigations,
    addresses,
    covered: { signUp: signUp.record, consent: consent.record },
  };
}

/**
 * jsdom does not run react-google-recaptcha's script tag: run the fake of
 * Google's script in its place, as the browser tests route it.
 */
async function loadFakeCaptcha() {
  if (!('grecaptcha' in window)) {
    const script = await waitFor(() => {
      const found = document.querySelector<HTMLScriptElement>(
        'script[src*="/recaptcha/api.js"]',
      );
      if (!found) throw new Error('the captcha script was not requested');
      return found;
    });
    const onload = new URL(script.src).searchParams.get('onload');
    // As a browser does: run the script, then fire its load event; the
    // fake calls `onload` on a later task, as Google's script does.
    new Function(fakeRecaptchaScript(onload ?? 'onloadcallback'))();
    script.dispatchEvent(new Event('load'));
  }
  await screen.findByTestId('fake-captcha');
}

/** The submit button, by any name a state gives it. */
const SUBMIT_BUTTON = new RegExp(
  `^(${[...new Set(Object.values(SIGN_UP_STATES).map((row) => row.button))].join('|')})$`,
);

const LABELS = {
  name: 'Your name',
  email: 'Email address',
  url: 'Website to monitor',
  newsletter: /product news/,
  tos: /terms of service/,
} as const;

async function performSignUp(
  user: UserEvent,
  network: ReturnType<typeof heldNetwork>,
  chunkLoads: ChunkLoads,
  event: SignUpModelEvent,
) {
  switch (event.type) {
    case 'field.change': {
      const input = screen.getByRole('textbox', { name: LABELS[event.field] });
      await user.clear(input);
      await user.click(input);
      // Emptying an empty field is no event a page sees: type and erase.
      if (event.value) await user.paste(event.value);
      else await user.keyboard('x{Backspace}');
      return;
    }
    case 'checkbox.change': {
      const box = screen.getByRole<HTMLInputElement>('checkbox', {
        name: LABELS[event.field],
      });
      // Ticking a ticked box (or the reverse) is no event a page sees:
      // change it and change it back, as a hesitant visitor would.
      if (box.checked === event.checked) await user.click(box);
      await user.click(box);
      return;
    }
    case 'captcha.solve': {
      // Ticking the widget again after a token yields a fresh token.
      const box = screen.getByTestId<HTMLInputElement>('fake-captcha');
      if (box.checked) await user.click(box);
      await user.click(box);
      return;
    }
    case 'captcha.expire':
      act(() =>
        (
          window as unknown as { __fakeCaptcha: { expire: () => void } }
        ).__fakeCaptcha.expire(),
      );
      return;
    case 'submit':
      // The button is named by the state (harness/model/reference.ts).
      await user.click(screen.getByRole('button', { name: SUBMIT_BUTTON }));
      return;
    case 'xstate.done.actor.submitSignUp':
    case 'xstate.error.actor.submitSignUp':
      await act(async () => network.answer(replyFor(event)));
      return;
    case 'rules.loaded':
    case 'rules.offline': {
      const load = chunkLoads.submit.at(-1);
      if (!load) throw new Error('the page fetched no submit chunk');
      await act(async () =>
        event.type === 'rules.loaded'
          ? load.resolve(submitChunk)
          : load.reject(new TypeError('Failed to fetch')),
      );
      return;
    }
    case 'hostRule.loaded':
    case 'hostRule.offline': {
      const load = chunkLoads.hostRule.at(-1);
      if (!load) throw new Error('the page fetched no host rule');
      await act(async () =>
        event.type === 'hostRule.loaded'
          ? load.resolve(hostRuleChunk)
          : load.reject(new TypeError('Failed to fetch')),
      );
      return;
    }
  }
}

describe('signUpMachine, UI level (React in jsdom)', () => {
  const paths = planPaths(signUpModel);
  const covered: TransitionRecord[] = [];

  for (const path of paths) {
    it(describePath(signUpModel, path), async () => {
      const page = await renderPage('');
      covered.push(page.covered.signUp);
      const model = expectedSignUpRun(
        path.input,
        path.events as SignUpModelEvent[],
      );
      expect(page.addresses).toEqual(['/signup']);
      expect(readSignUpView()).toEqual(expectedSignUpView(model.initial));
      for (const [index, event] of (
        path.events as SignUpModelEvent[]
      ).entries()) {
        await performSignUp(page.user, page.network, page.chunkLoads, event);
        const expected = model.after[index];
        if (!expected) throw new Error('the reference has no step');
        await waitFor(() =>
          expect(readSignUpView()).toEqual(expectedSignUpView(expected)),
        );
        const succeeded = expected.state === 'success';
        expect(page.navigations).toEqual(succeeded ? ['/'] : []);
        if (succeeded) {
          expect(JSON.parse(Cookies.get('VigilLogin') ?? '{}')).toEqual({
            VigilToken: MODEL_SESSION.token,
            VigilSID: MODEL_SESSION.sid,
          });
        }
      }
    });
  }

  it('covers every transition the machine defines', () => {
    expect(
      reportCoverage(signUpMachine, covered, paths.length, 'UI level'),
    ).toEqual([]);
  });
});

describe('consentMachine, UI level (React in jsdom)', () => {
  const paths = planPaths(consentModel);
  const covered: TransitionRecord[] = [];

  const stored = (path: PlannedPath<{ storedChoice: string }>) =>
    path.input.storedChoice === 'accepted'
      ? '1'
      : path.input.storedChoice === 'rejected'
        ? '0'
        : null;

  for (const path of paths) {
    it(describePath(consentModel, path, describeConsentInput), async () => {
      const storedCookie = stored(path);
      if (storedCookie !== null) {
        Cookies.set('Vigil_COOKIE_CONSENT', storedCookie, { path: '/' });
        const { storedRevision } = path.input;
        if (storedRevision !== undefined) {
          Cookies.set('Vigil_CONSENT_REVISION', String(storedRevision), {
            path: '/',
          });
        }
      }
      const { utmSource, gpcSignal } = path.input;
      if (gpcSignal) {
        // As a browser that sends GPC defines it (GPC specification).
        Object.defineProperty(navigator, 'globalPrivacyControl', {
          get: () => true,
          configurable: true,
        });
      }
      const page = await renderPage(
        utmSource ? `?utm_source=${utmSource}` : '',
      );
      covered.push(page.covered.consent);
      const model = expectedConsentRun(
        path.input,
        path.events as ConsentEvent[],
      );
      // The modal's component arrives as a chunk of its own (ADR-0064).
      await waitFor(() =>
        expect(readConsentView()).toEqual(
          expectedConsentView(model.initial, storedCookie),
        ),
      );
      for (const [index, event] of path.events.entries()) {
        switch (event.type) {
          case 'consent.accept':
            await page.user.click(
              screen.getByRole('button', { name: 'Accept marketing cookies' }),
            );
            break;
          case 'consent.reject':
            await page.user.click(
              screen.getByRole('button', { name: 'Reject marketing cookies' }),
            );
            break;
          case 'settings.open':
            await page.user.click(
              screen.getByRole('button', { name: 'Cookie settings' }),
            );
            break;
          case 'modal.close':
            await page.user.keyboard('{Escape}');
            break;
          default:
            throw new Error(`no visitor action for ${event.type}`);
        }
        const expected = model.after[index];
        if (!expected) throw new Error('the reference has no step');
        await waitFor(() =>
          expect(readConsentView()).toEqual(
            expectedConsentView(expected, storedCookie),
          ),
        );
      }
    });
  }

  it('covers every transition the machine defines', () => {
    expect(
      reportCoverage(consentMachine, covered, paths.length, 'UI level'),
    ).toEqual([]);
  });
});
