/**
 * What the page shows of the consent actor outside the modal: its view for
 * the page (whether the modal is open, the choice, the settings link) and
 * the "Cookie settings" link. The modal itself lives in ConsentDialog.tsx,
 * a chunk of its own that the page fetches the first time the modal opens
 * (D64 in docs/decisions.md).
 */
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import {
  selectChoice,
  selectModalOpen,
  selectSettingsShown,
  type ConsentChoice,
  type consentMachine,
} from '../../machines/consentMachine';
import { useHydrated } from './hydration';

export type ConsentActor = ActorRefFrom<typeof consentMachine>;

export interface ConsentView {
  /** The modal is open. */
  open: boolean;
  choice: ConsentChoice;
  /** The "Cookie settings" link shows. */
  settingsShown: boolean;
}

/**
 * What the consent views show. The prerendered page knows no stored choice
 * and no address, so while React adopts it the views show its default
 * (modal closed, no choice); the actor's real state shows in the render
 * right after, which keeps the hydration free of mismatches whatever the
 * visit's cookies and address say.
 */
export function useConsentView(consent: ConsentActor): ConsentView {
  const hydrated = useHydrated();
  const open = useSelector(consent, selectModalOpen);
  const choice = useSelector(consent, selectChoice);
  const settingsShown = useSelector(consent, selectSettingsShown);
  return hydrated
    ? { open, choice, settingsShown }
    : { open: false, choice: 'unset', settingsShown: false };
}

/** "Cookie settings": shown only once a choice exists (R4.10). */
export function ConsentSettingsLink({ consent }: { consent: ConsentActor }) {
  const { settingsShown } = useConsentView(consent);
  if (!settingsShown) return null;
  return (
    <button
      type="button"
      className="link-button"
      data-testid="consent-settings"
      onClick={() => consent.send({ type: 'settings.open' })}
    >
      Cookie settings
    </button>
  );
}
