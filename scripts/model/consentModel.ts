/**
 * The consent machine's test model: every start (stored choice ×
 * `utm_source`, under the current revision; and a choice stored without
 * one, which counts as none: D67) and every visitor action. The revision
 * is the test page's `CONSENT_REVISION`, 1.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import {
  consentMachine,
  type ConsentEvent,
  type ConsentInput,
} from '../../machines/consentMachine';
import type { ModelSpec } from './planner';

/** The test page's `CONSENT_REVISION`. */
export const MODEL_REVISION = 1;

export const consentInputs: ConsentInput[] = [
  ...(['unset', 'accepted', 'rejected'] as const).flatMap((storedChoice) =>
    ['google', 'microsoft', 'newsletter', undefined].map((utmSource) => ({
      storedChoice,
      storedRevision: storedChoice === 'unset' ? undefined : MODEL_REVISION,
      revision: MODEL_REVISION,
      utmSource,
    })),
  ),
  // Outdated: stored before revisions, asked again even without a campaign.
  ...(['accepted', 'rejected'] as const).map((storedChoice) => ({
    storedChoice,
    storedRevision: undefined,
    revision: MODEL_REVISION,
    utmSource: undefined,
  })),
];

export const consentCases: ConsentEvent[] = [
  { type: 'consent.accept' },
  { type: 'consent.reject' },
  { type: 'settings.open' },
  { type: 'modal.close' },
];

export const consentModel: ModelSpec<ConsentInput> = {
  machine: consentMachine,
  replayLogic: consentMachine,
  inputs: consentInputs,
  cases: consentCases,
  abstract: (snapshot: AnyMachineSnapshot) =>
    JSON.stringify([snapshot.value, snapshot.context]),
  caseName: (event: EventObject) => event.type,
};

/** e.g. `stored rejected, utm_source=google`. */
export function describeConsentInput(input: ConsentInput): string {
  const outdated =
    input.storedChoice !== 'unset' && input.storedRevision === undefined
      ? ' without a revision'
      : '';
  return `stored ${input.storedChoice}${outdated}, ${input.utmSource ? `utm_source=${input.utmSource}` : 'no utm_source'}`;
}
