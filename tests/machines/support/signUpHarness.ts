/**
 * Runs the real sign-up machine with its effects replaced through
 * `machine.provide`: `checkForm` is the page's (the real rules, with the
 * host rule fetched when the site URL needs it), the chunks' fetches and
 * the HTTP call answer when the test says so, and the cookie and
 * navigation actions are recorded.
 */
import type { HostRule } from '../../../common/asciiHost';
import { judgeForm } from '../../../common/signUpRules';
import { createActor, fromPromise, type InspectionEvent } from 'xstate';
import {
  signUpMachine,
  type FormToCheck,
  type FormVerdict,
  type SignUpEvent,
  type SignUpInput,
} from '../../../machines/signUpMachine';
import {
  type Failure,
  type Session,
  type SignUpRequest,
} from '../../../contract/signUp';
import { loadOnce } from '../../../src/platform/chunkLoader';

/**
 * Fills {@link VALID_FORM}, ticks the terms and solves the captcha, as
 * the visitor would, on any actor of the sign-up machine.
 */
export function fillValidForm(
  actor: { send: (event: SignUpEvent) => void },
  token = 'captcha-token',
) {
  for (const field of ['name', 'email', 'url'] as const) {
    actor.send({ type: 'field.change', field, value: VALID_FORM[field] });
  }
  actor.send({ type: 'checkbox.change', field: 'tos', checked: true });
  actor.send({ type: 'captcha.solve', token });
}

/** A form the client-side rules accept, as the visitor would fill it. */
export const VALID_FORM = {
  name: '  Ada Lovelace ',
  email: ' ada@example.com ',
  url: ' example.com/status ',
} as const;

/**
 * @param input the machine's input
 * @param options.rules `given` (the default): the form's rules' chunk has
 *   arrived; `held`: each fetch of it waits in `rulesLoads` for the test
 *   (ADR-0071). The host rule's fetches always wait in `hostRuleLoads`
 *   (ADR-0058). As on the page, a chunk that arrived is kept, and one that
 *   failed is fetched again by the next submit (src/platform/chunkLoader.ts).
 */
export function startSignUp(
  input: SignUpInput = {},
  inspect?: (event: InspectionEvent) => void,
  options: { rules: 'given' | 'held' } = { rules: 'given' },
) {
  const requests: {
    request: SignUpRequest;
    answer: PromiseWithResolvers<Session>;
  }[] = [];
  /** Each fetch of the form's rules' chunk (ADR-0071). */
  const rulesLoads: PromiseWithResolvers<void>[] = [];
  /** Each fetch of the host rule's chunk (ADR-0058). */
  const hostRuleLoads: PromiseWithResolvers<HostRule>[] = [];
  const cookies: Session[] = [];
  /** Each failure the machine reported (R7.4, ADR-0037). */
  const reports: Failure[] = [];
  let navigations = 0;
  let captchaResets = 0;
  const held = <T>(loads: PromiseWithResolvers<T>[]) => {
    const load = Promise.withResolvers<T>();
    loads.push(load);
    return load.promise;
  };
  const loadRules = loadOnce(() =>
    options.rules === 'given' ? Promise.resolve() : held(rulesLoads),
  );
  const loadHostRule = loadOnce(() => held(hostRuleLoads));
  const machine = signUpMachine.provide({
    actors: {
      checkForm: fromPromise<FormVerdict, FormToCheck>(async ({ input }) => {
        await loadRules();
        return judgeForm(input, loadHostRule);
      }),
      submitSignUp: fromPromise<Session, SignUpRequest>(
        ({ input: request }) => {
          const answer = Promise.withResolvers<Session>();
          requests.push({ request, answer });
          return answer.promise;
        },
      ),
    },
    actions: {
      setLoginCookies: (_, session: Session) => {
        cookies.push(session);
      },
      navigateHome: () => {
        navigations += 1;
      },
      reportFailure: (_, failure: Failure) => {
        reports.push(failure);
      },
    },
  });
  const actor = createActor(machine, { input, inspect });
  actor.on('captcha.reset', () => {
    captchaResets += 1;
  });
  actor.start();
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  return {
    actor,
    requests,
    rulesLoads,
    hostRuleLoads,
    cookies,
    reports,
    get navigations() {
      return navigations;
    },
    get captchaResets() {
      return captchaResets;
    },
    fillValidForm(token = 'captcha-token') {
      fillValidForm(actor, token);
    },
    /** Lets the machine see a settled promise. */
    settle,
    /** Submits, and lets the machine see the verdict if it could be made. */
    async submit() {
      actor.send({ type: 'submit' });
      await settle();
    },
  };
}
