/**
 * The types the consent views share (types only, so the modal's chunk,
 * src/consent/views/ConsentDialog.tsx, imports nothing but React at run time:
 * ADR-0064). Both consentView.tsx, which fetches the
 * modal's chunk, and the modal import them from here, so neither imports
 * the other.
 */
import type { ActorRefFrom } from 'xstate';
import type {
  ConsentChoice,
  consentMachine,
} from '../../../machines/consentMachine';

/** The running consent machine. */
export type ConsentActor = ActorRefFrom<typeof consentMachine>;

/** What the consent views show of the actor. */
export interface ConsentView {
  /** The modal is open. */
  open: boolean;
  choice: ConsentChoice;
  /** The "Cookie settings" link shows. */
  settingsShown: boolean;
  /** The rejection is the browser's privacy signal's, not the visitor's (ADR-0073). */
  signalHonoured: boolean;
}
