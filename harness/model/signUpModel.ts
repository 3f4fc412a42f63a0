/**
 * The sign-up machine's test model: the event cases that cover the branches
 * of R4.1 to R4.6, R5.1 to R5.10 and R8.1 to R8.7 (docs/requirements.md),
 * and the abstraction the traversal uses.
 */
import { fromPromise, type AnyMachineSnapshot, type EventObject } from 'xstate';
import {
  signUpMachine,
  type FormToCheck,
  type FormVerdict,
  type SignUpContext,
  type SignUpEvent,
  type SignUpInput,
} from '../../machines/signUpMachine';
import {
  SignUpRejection,
  type Failure,
  type Session,
  type SignUpRequest,
} from '../../contract/signUp';
import { checkHostName } from '../../common/domainName';
import { verdictOf } from '../../common/signUpRules';
import { siteUrlNeedsIdnRule, validateSignUp } from '../../common/validation';
import type { ModelSpec, ModelWorld } from './planner';

/** What the invoked `submitSignUp` actor reports to the machine. */
export type SubmitOutcome =
  | { type: 'xstate.done.actor.submitSignUp'; output: Session }
  | { type: 'xstate.error.actor.submitSignUp'; error: SignUpRejection };

/**
 * What becomes of a fetch of a chunk the `checkForm` actor waits for (ADR-0058,
 * ADR-0059, ADR-0071): the submit chunk with the form's rules, or the UTS #46
 * host rule's, arrives or cannot be fetched (offline). The machine hears only
 * the verdict these make (./planner.ts `ModelWorld`).
 */
export type ChunkOutcome =
  | { type: 'rules.loaded' }
  | { type: 'rules.offline' }
  | { type: 'hostRule.loaded' }
  | { type: 'hostRule.offline' };

export type SignUpModelEvent = SignUpEvent | SubmitOutcome | ChunkOutcome;

/** A site whose host needs the UTS #46 rule: the chunk must arrive first. */
export const MODEL_IDN_URL = 'bücher.de';

export const MODEL_SESSION: Session = {
  token: 'model-token-4f9c',
  sid: 'model-sid-81d2',
};

/**
 * The failures a server reply can produce (R8.1 to R8.3, ADR-0043,
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
  { type: 'xstate.done.actor.submitSignUp', output: MODEL_SESSION },
  ...MODEL_FAILURES.map((failure): SubmitOutcome => ({
    type: 'xstate.error.actor.submitSignUp',
    error: new SignUpRejection(failure),
  })),
];

/** e.g. `name: Ada Lovelace`, `tos ticked`, `reply: rateLimited`. */
export function signUpCaseName(event: EventObject): string {
  const e = event as SignUpModelEvent | CheckOutcome;
  switch (e.type) {
    case 'xstate.done.actor.checkForm':
      return e.output.accepted ? 'verdict: send' : 'verdict: errors';
    case 'xstate.error.actor.checkForm':
      return 'verdict: none';
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
    case 'rules.loaded':
      return 'rules loaded';
    case 'rules.offline':
      return 'rules offline';
    case 'hostRule.loaded':
      return 'host rule loaded';
    case 'hostRule.offline':
      return 'host rule offline';
    case 'xstate.done.actor.submitSignUp':
      return 'reply: success';
    case 'xstate.error.actor.submitSignUp': {
      const { failure } = e.error;
      return `reply: ${failure.kind === 'general' ? `general (${failure.reason})` : failure.kind}`;
    }
  }
}

/** What `checkForm` reports to the machine: a verdict, or no rules. */
type CheckOutcome =
  | { type: 'xstate.done.actor.checkForm'; output: FormVerdict }
  | { type: 'xstate.error.actor.checkForm'; error: Error };

/** ADR-0071: without the form's rules, `checkForm` fails. */
const NO_RULES: CheckOutcome = {
  type: 'xstate.error.actor.checkForm',
  error: new Error('the chunk could not be fetched'),
};

/** Which chunks have arrived (ADR-0058, ADR-0071); one that failed is fetched again. */
export interface Chunks {
  rules: boolean;
  hostRule: boolean;
}

/** The chunk a submit waits for now, if any. */
function awaitedChunk(
  snapshot: AnyMachineSnapshot,
  chunks: Chunks,
): keyof Chunks | null {
  if (!snapshot.matches('validating')) return null;
  if (!chunks.rules) return 'rules';
  const { url } = (snapshot.context as SignUpContext).values;
  return siteUrlNeedsIdnRule(url) && !chunks.hostRule ? 'hostRule' : null;
}

/** The verdict `checkForm` makes on the snapshot's form. */
function verdictOn(
  snapshot: AnyMachineSnapshot,
  hostRule: boolean,
): CheckOutcome {
  const form: FormToCheck = snapshot.context as SignUpContext;
  return {
    type: 'xstate.done.actor.checkForm',
    output: verdictOf(form, hostRule ? checkHostName : undefined),
  };
}

/**
 * The page's chunks around the machine, as src/app.tsx fetches them: a
 * submit waits for the chunks that have not arrived (the host rule's only
 * when the site URL's host needs it), and is judged as soon as none is
 * awaited.
 */
export const chunkWorld: ModelWorld<Chunks> = {
  start: { rules: false, hostRule: false },
  cases: (snapshot, chunks) => {
    const awaited = awaitedChunk(snapshot, chunks);
    return awaited
      ? [{ type: `${awaited}.loaded` }, { type: `${awaited}.offline` }]
      : [];
  },
  step: (event, chunks, from, send) => {
    let arrived = chunks;
    let snapshot = from;
    switch (event.type) {
      case 'rules.offline':
        send(NO_RULES);
        return chunks;
      case 'hostRule.offline':
        // ADR-0059: judged without it; the site URL says it was not checked.
        send(verdictOn(from, false));
        return chunks;
      case 'rules.loaded':
        arrived = { ...chunks, rules: true };
        break;
      case 'hostRule.loaded':
        arrived = { ...chunks, hostRule: true };
        break;
      default:
        snapshot = send(event);
    }
    if (snapshot.matches('validating') && !awaitedChunk(snapshot, arrived)) {
      send(verdictOn(snapshot, arrived.hostRule));
    }
    return arrived;
  },
};

/**
 * Snapshots that look the same to the visitor and lead to the same
 * behaviour count as one state: the state (a failure's names its kind), which
 * errors show, which rules the form breaks, whether the site URL needs
 * the host rule, and which chunks have arrived.
 */
export function abstractSignUp(
  snapshot: AnyMachineSnapshot,
  chunks: unknown,
): string {
  const context = snapshot.context as SignUpContext;
  const { rules, hostRule } = chunks as Chunks;
  return JSON.stringify([
    snapshot.value,
    Object.keys(context.errors).sort(),
    Object.keys(
      validateSignUp(
        { ...context.values, captchaToken: context.captchaToken },
        hostRule ? checkHostName : undefined,
      ),
    ).sort(),
    siteUrlNeedsIdnRule(context.values.url),
    rules,
    hostRule,
  ]);
}

// The page's machine, starting before its chunks have arrived.
export const signUpModel: ModelSpec<SignUpInput> = {
  machine: signUpMachine,
  replayLogic: signUpMachine.provide({
    actors: {
      checkForm: fromPromise<FormVerdict, FormToCheck>(
        () => new Promise<never>(() => {}),
      ),
      submitSignUp: fromPromise<Session, SignUpRequest>(
        () => new Promise<never>(() => {}),
      ),
    },
  }),
  inputs: [{}],
  cases: signUpCases,
  world: chunkWorld as ModelWorld<unknown>,
  abstract: abstractSignUp,
  caseName: signUpCaseName,
};
