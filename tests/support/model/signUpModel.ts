/**
 * The sign-up machine's test model: the event cases that cover the branches
 * of R4.1 to R4.6, R5.1 to R5.10 and R8.1 to R8.7 (docs/requirements.md),
 * and the abstraction the traversal uses.
 */
import { fromPromise, type AnyMachineSnapshot, type EventObject } from 'xstate';
import {
  signUpMachine,
  type HostRule,
  type SignUpContext,
  type SignUpEvent,
  type SignUpInput,
  type SignUpRules,
} from '../../../machines/signUpMachine';
import {
  SignUpRejection,
  type Failure,
  type Session,
  type SignUpRequest,
} from '../../../machines/signUpContract';
import { checkHostName } from '../../../common/domainName';
import { signUpRules } from '../../../common/signUpRules';
import {
  siteUrlNeedsIdnRule,
  validateSignUp,
} from '../../../common/validation';
import type { ModelSpec } from './planner';

/** What the invoked `submitSignUp` actor reports to the machine. */
export type SubmitOutcome =
  | { type: 'xstate.done.actor.submitSignUp'; output: Session }
  | { type: 'xstate.error.actor.submitSignUp'; error: SignUpRejection };

/**
 * What the invoked `loadRules` actor reports (D71): the submit chunk with
 * the form's rules arrived, or could not be fetched (offline).
 */
export type RulesOutcome =
  | { type: 'xstate.done.actor.loadRules'; output: SignUpRules }
  | { type: 'xstate.error.actor.loadRules'; error: Error };

/**
 * What the invoked `loadHostRule` actor reports (D58, D59): the chunk with
 * the UTS #46 rule arrived, or could not be fetched (offline).
 */
export type HostRuleOutcome =
  | { type: 'xstate.done.actor.loadHostRule'; output: HostRule }
  | { type: 'xstate.error.actor.loadHostRule'; error: Error };

export type SignUpModelEvent =
  SignUpEvent | SubmitOutcome | RulesOutcome | HostRuleOutcome;

/** A site whose host needs the UTS #46 rule: the chunk must arrive first. */
export const MODEL_IDN_URL = 'bücher.de';

export const MODEL_SESSION: Session = {
  token: 'model-token-4f9c',
  sid: 'model-sid-81d2',
};

/**
 * The failures a server reply can produce (R8.1 to R8.3, D43,
 * docs/contract.md).
 */
export const MODEL_FAILURES: Failure[] = [
  { kind: 'rateLimited' },
  { kind: 'invalidName' },
  { kind: 'emailInUse' },
  { kind: 'general', reason: 'refused' },
  { kind: 'general', reason: 'malformed' },
  { kind: 'general', reason: 'network' },
  { kind: 'general', reason: 'timeout' },
];

export const signUpCases: SignUpModelEvent[] = [
  { type: 'field.change', field: 'name', value: 'Ada Lovelace' },
  { type: 'field.change', field: 'name', value: '' },
  { type: 'field.change', field: 'email', value: 'ada@example.com' },
  { type: 'field.change', field: 'email', value: 'ada@' },
  { type: 'field.change', field: 'url', value: 'example.com' },
  { type: 'field.change', field: 'url', value: 'localhost:3000' },
  { type: 'field.change', field: 'url', value: MODEL_IDN_URL },
  { type: 'checkbox.change', field: 'tos', checked: true },
  { type: 'checkbox.change', field: 'tos', checked: false },
  { type: 'checkbox.change', field: 'newsletter', checked: true },
  { type: 'captcha.solve', token: 'fake-captcha-token' },
  { type: 'captcha.expire' },
  { type: 'submit' },
  { type: 'xstate.done.actor.loadRules', output: signUpRules },
  {
    type: 'xstate.error.actor.loadRules',
    error: new Error('the chunk could not be fetched'),
  },
  { type: 'xstate.done.actor.loadHostRule', output: checkHostName },
  {
    type: 'xstate.error.actor.loadHostRule',
    error: new Error('the chunk could not be fetched'),
  },
  { type: 'xstate.done.actor.submitSignUp', output: MODEL_SESSION },
  ...MODEL_FAILURES.map((failure): SubmitOutcome => ({
    type: 'xstate.error.actor.submitSignUp',
    error: new SignUpRejection(failure),
  })),
];

/** e.g. `name: Ada Lovelace`, `tos ticked`, `reply: rateLimited`. */
export function signUpCaseName(event: EventObject): string {
  const e = event as SignUpModelEvent;
  switch (e.type) {
    case 'field.change':
      return `${e.field}: ${e.value || '(empty)'}`;
    case 'checkbox.change':
      return `${e.field} ${e.checked ? 'ticked' : 'unticked'}`;
    case 'captcha.solve':
      return 'captcha solved';
    case 'captcha.expire':
      return 'captcha expired';
    case 'submit':
      return 'submit';
    case 'xstate.done.actor.loadRules':
      return 'rules loaded';
    case 'xstate.error.actor.loadRules':
      return 'rules offline';
    case 'xstate.done.actor.loadHostRule':
      return 'host rule loaded';
    case 'xstate.error.actor.loadHostRule':
      return 'host rule offline';
    case 'xstate.done.actor.submitSignUp':
      return 'reply: success';
    case 'xstate.error.actor.submitSignUp': {
      const { failure } = e.error;
      return `reply: ${failure.kind === 'general' ? `general (${failure.reason})` : failure.kind}`;
    }
  }
}

/**
 * Snapshots that look the same to the visitor and lead to the same
 * behaviour count as one state: the state (a failure's names its kind), which
 * errors show, which rules the form breaks, whether the site URL needs
 * the host rule, and whether the rules and the host rule have loaded.
 */
export function abstractSignUp(snapshot: AnyMachineSnapshot): string {
  const context = snapshot.context as SignUpContext;
  return JSON.stringify([
    snapshot.value,
    Object.keys(context.errors).sort(),
    Object.keys(
      validateSignUp(
        { ...context.values, captchaToken: context.captchaToken },
        context.hostRule ?? undefined,
      ),
    ).sort(),
    siteUrlNeedsIdnRule(context.values.url),
    context.rules !== null,
    context.hostRule !== null,
  ]);
}

// The page's machine, starting without its rules (they arrive as a chunk).
export const signUpModel: ModelSpec<SignUpInput> = {
  machine: signUpMachine,
  replayLogic: signUpMachine.provide({
    actors: {
      submitSignUp: fromPromise<Session, SignUpRequest>(
        () => new Promise<never>(() => {}),
      ),
      loadRules: fromPromise<SignUpRules>(() => new Promise<never>(() => {})),
      loadHostRule: fromPromise<HostRule>(() => new Promise<never>(() => {})),
    },
  }),
  inputs: [{}],
  cases: signUpCases,
  abstract: abstractSignUp,
  caseName: signUpCaseName,
};
