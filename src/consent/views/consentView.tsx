/**
 * What the page shows of the consent actor: its view (whether the modal is
 * open, the choice, the settings link), the "Cookie settings" link, and the
 * place of the modal. The modal itself lives in ConsentDialog.tsx, a chunk
 * of its own that the page fetches the first time the modal opens (ADR-0064).
 */
import { useSelector } from '@xstate/react';
import { lazy, Suspense } from 'react';
import {
  selectChoice,
  selectModalOpen,
  selectSettingsShown,
  selectSignalHonoured,
} from '../../../machines/consentMachine';
import { chunkLoader } from '../../platform/chunkLoader';
import type { ConsentActor, ConsentView } from './consentTypes';

export type { ConsentActor, ConsentView } from './consentTypes';

/**
 * What the consent views show. They are never prerendered (the shell's
 * slots for them are empty, ADR-0072), so they show the actor's state from
 * their first render, whatever the visit's cookies and address say.
 */
export function useConsentView(consent: ConsentActor): ConsentView {
  return {
    open: useSelector(consent, selectModalOpen),
    choice: useSelector(consent, selectChoice),
    settingsShown: useSelector(consent, selectSettingsShown),
    signalHonoured: useSelector(consent, selectSignalHonoured),
  };
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

/**
 * The consent modal's component: a chunk of its own, fetched the first
 * time the modal opens (ADR-0064), since most visits never
 * open it. A chunk that cannot be fetched shows nothing: the page stays
 * usable, and with no choice made no tag loads.
 */
const loadDialog = chunkLoader(() => import('./ConsentDialog'));
const LazyConsentDialog = lazy(() =>
  loadDialog().then(
    ({ ConsentDialog }) => ({ default: ConsentDialog }),
    () => ({ default: () => null }),
  ),
);

/**
 * The consent modal in its place after the page (PageShell.tsx), while it
 * is open; its chunk arrives on the first opening.
 */
export function ConsentModal({
  consent,
  productName,
}: {
  consent: ConsentActor;
  productName: string;
}) {
  const view = useConsentView(consent);
  return view.open ? (
    <Suspense>
      <LazyConsentDialog
        view={view}
        consent={consent}
        productName={productName}
      />
    </Suspense>
  ) : null;
}
