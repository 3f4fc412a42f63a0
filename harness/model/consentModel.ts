/**
 * The consent machine's test model: every start (stored choice ×
 * `utm_source`, under the current revision; a choice stored under an older
 * revision, which counts as none (ADR-0067), one stored without a revision,
 * made under revision 1, among them; the browser's Global Privacy Control
 * signal with no choice, an outdated one or a current one: ADR-0073) and every
 * visitor action. The revision is the test page's `CONSENT_REVISION`, 2
 * (harness/page/paths.ts): that a choice without a revision stands
 * under revision 1 is tested by the machine's unit tests and, on a page
 * built with it, by tests/browser/consentAudit.test.ts.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { choiceIsCurrent } from '../../machines/consentRevision';
import {
  consentMachine,
  selectChoice,
  type ConsentContext,
  type ConsentEvent,
  type ConsentInput,
} from '../../machines/consentMachine';
import { TEST_CONSENT_REVISION } from '../page/paths';
import type { ModelSpec } from './planner';

/** The test page's `CONSENT_REVISION`. */
export const MODEL_REVISION = TEST_CONSENT_REVISION;

/** The revision before it: a choice stored under it is outdated. */
const OLDER_REVISION = MODEL_REVISION - 1;

const start = (
  storedChoice: ConsentInput['storedChoice'],
  storedRevision: number | undefined,
  utmSource: string | undefined,
  gpcSignal = false,
): ConsentInput => ({
  storedChoice,
  storedRevision: storedChoice === 'unset' ? undefined : storedRevision,
  revision: MODEL_REVISION,
  utmSource,
  gpcSignal,
});

export const consentInputs: ConsentInput[] = [
  ...(['unset', 'accepted', 'rejected'] as const).flatMap((storedChoice) =>
    ['google', 'microsoft', 'newsletter', undefined].map((utmSource) =>
      start(storedChoice, MODEL_REVISION, utmSource),
    ),
  ),
  // Outdated, asked again even without a campaign: an accept made before
  // the policy's last revision, a reject made before revisions were stored
  // (under revision 1, older than the model's).
  start('accepted', OLDER_REVISION, undefined),
  start('rejected', undefined, undefined),
  // ADR-0073: the browser's signal rejects where no current choice stands, even
  // from a campaign, and yields to one that does.
  start('unset', undefined, 'google', true),
  start('unset', undefined, undefined, true),
  start('accepted', OLDER_REVISION, undefined, true),
  start('accepted', MODEL_REVISION, 'google', true),
  start('rejected', MODEL_REVISION, undefined, true),
];

export const consentCases: ConsentEvent[] = [
  { type: 'consent.accept' },
  { type: 'consent.reject' },
  { type: 'settings.open' },
  { type: 'modal.close' },
];

/**
 * The looks of consent states that the paths must reach besides every
 * transition (the atlas pictures each): the rejection the browser's signal
 * made, with the modal open (it says so) and closed; the modal asking again
 * for an outdated choice; a choice the visitor made over the signal; and a
 * choice stored earlier that the signal yields to. Undefined for any other
 * snapshot.
 */
export function consentLook(snapshot: AnyMachineSnapshot): string | undefined {
  const context = snapshot.context as ConsentContext;
  if (context.choiceSource === 'gpc') return 'rejected by GPC';
  const stored = context.storedChoice !== 'unset';
  if (snapshot.matches({ unset: 'open' }) && stored) return 'asked again';
  if (!context.gpcSignal || snapshot.hasTag('modal')) return undefined;
  const kept =
    stored &&
    choiceIsCurrent(context) &&
    context.storedChoice === selectChoice(snapshot);
  return kept ? 'stored choice over GPC' : 'chosen over GPC';
}

export const consentModel: ModelSpec<ConsentInput> = {
  machine: consentMachine,
  replayLogic: consentMachine,
  inputs: consentInputs,
  cases: consentCases,
  abstract: (snapshot: AnyMachineSnapshot) =>
    JSON.stringify([snapshot.value, snapshot.context]),
  caseName: (event: EventObject) => event.type,
  look: consentLook,
};

/** e.g. `stored rejected under revision 1, utm_source=google, GPC`. */
export function describeConsentInput(input: ConsentInput): string {
  const revision =
    input.storedChoice === 'unset' || choiceIsCurrent(input)
      ? ''
      : input.storedRevision === undefined
        ? ' without a revision'
        : ` under revision ${input.storedRevision}`;
  const source = input.utmSource
    ? `utm_source=${input.utmSource}`
    : 'no utm_source';
  return `stored ${input.storedChoice}${revision}, ${source}${input.gpcSignal ? ', GPC' : ''}`;
}
