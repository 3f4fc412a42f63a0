/**
 * The consent machine's test model: every start (stored choice ×
 * `utm_source`) and every visitor action.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import {
  consentMachine,
  type ConsentEvent,
  type ConsentInput,
} from '../../machines/consentMachine';
import type { ModelSpec } from './planner';

export const consentInputs: ConsentInput[] = (
  ['unset', 'accepted', 'rejected'] as const
).flatMap((storedChoice) =>
  ['google', 'microsoft', 'newsletter', undefined].map((utmSource) => ({
    storedChoice,
    utmSource,
  })),
);

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
  return `stored ${input.storedChoice}, ${input.utmSource ? `utm_source=${input.utmSource}` : 'no utm_source'}`;
}
