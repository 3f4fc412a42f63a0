/**
 * The ad networks' consent default (ADR-0066):
 * granted only for an accept stored under the current policy
 * (ADR-0067), denied otherwise. One rule for the
 * built page's inline script (src/inputCapture/inlineScript.ts), which pushes the
 * default before any other script runs, and for the app, which pushes it
 * where there is no inline script (`npm run dev`). Small and free of the
 * machine: the inline script carries it.
 */
import type { ConsentRecordChoice } from '../../contract/consentChoice';
import { choiceIsCurrent } from '../../machines/consentRevision';
import type { ConsentSignal } from './consentSignals';

/** A stored choice as the consent machine reads it (its input). */
export interface StoredConsent {
  /** The decoded consent cookie (contract/consentChoice.ts); none: unset. */
  storedChoice: ConsentRecordChoice | 'unset' | undefined;
  /** The revision it was stored under (`storedRevisionOf`). */
  storedRevision: number | undefined;
  /** `CONSENT_REVISION`, the policy's revision now. */
  revision: number;
}

/** @returns `granted` for a current accept, else `denied` */
export function consentDefaultFrom(stored: StoredConsent): ConsentSignal {
  return stored.storedChoice === 'accepted' && choiceIsCurrent(stored)
    ? 'granted'
    : 'denied';
}
