/**
 * Runs the real sign-up machine with its effects replaced through
 * `machine.provide`: the HTTP call and the chunks answer when the test says
 * so, and the cookie and navigation actions are recorded.
 */
import { signUpRules } from '../../../common/signUpRules';
import { createActor, fromPromise, type InspectionEvent } from 'xstate';
import {
  signUpMachine,
  type HostRule,
  type SignUpInput,
  type SignUpRules,
} from '../../../machines/signUpMachine';
import {
  type Failure,
  type Session,
  type SignUpRequest,
} from '../../../machines/signUpContract';

export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A form the client-side rules accept, as the visitor would fill it. */
export const VALID_FORM = {
  name: '  Ada Lovelace ',
  email: ' ada@example.com ',
  url: ' example.com/status ',
} as const;

/**
 * @param input the machine's input; the form's rules are added to it
 *   unless `options.rules` is `held`
 * @param options.rules `given` (the default): the machine starts with the
 *   form's rules, as once their chunk has arrived; `held`: it starts
 *   without them, and each load waits in `rulesLoads` for the test (D71)
 */
export function startSignUp(
  input: SignUpInput = {},
  inspect?: (event: InspectionEvent) => void,
  options: { rules: 'given' | 'held' } = { rules: 'given' },
) {
  const requests: { request: SignUpRequest; answer: Deferred<Session> }[] = [];
  /** Each time the machine asked for the form's rules' chunk (D71). */
  const rulesLoads: Deferred<SignUpRules>[] = [];
  /** Each time the machine asked for the host rule's chunk (D58). */
  const hostRuleLoads: Deferred<HostRule>[] = [];
  const cookies: Session[] = [];
  /** Each failure the machine reported (R7.4, D37). */
  const reports: Failure[] = [];
  let navigations = 0;
  let captchaResets = 0;
  const machine = signUpMachine.provide({
    actors: {
      submitSignUp: fromPromise<Session, SignUpRequest>(
        ({ input: request }) => {
          const answer = deferred<Session>();
          requests.push({ request, answer });
          return answer.promise;
        },
      ),
      loadRules: fromPromise<SignUpRules>(() => {
        const load = deferred<SignUpRules>();
        rulesLoads.push(load);
        return load.promise;
      }),
      loadHostRule: fromPromise<HostRule>(() => {
        const load = deferred<HostRule>();
        hostRuleLoads.push(load);
        return load.promise;
      }),
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
  const actor = createActor(machine, {
    input: options.rules === 'given' ? { rules: signUpRules, ...input } : input,
    inspect,
  });
  actor.on('captcha.reset', () => {
    captchaResets += 1;
  });
  actor.start();

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
      for (const field of ['name', 'email', 'url'] as const) {
        actor.send({ type: 'field.change', field, value: VALID_FORM[field] });
      }
      actor.send({ type: 'checkbox.change', field: 'tos', checked: true });
      actor.send({ type: 'captcha.solve', token });
    },
    /** Lets the machine see a settled promise. */
    settle: () => new Promise((resolve) => setTimeout(resolve, 0)),
  };
}
