import { useLayoutEffect, useRef } from 'react';
// Types only: the modal's chunk (D64) imports nothing but React, so the
// page's own bundle need not share its modules with it.
import type { ConsentActor, ConsentView } from './consentView';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled])';

/** Tab past the last control goes to the first, Shift+Tab the other way. */
function keepFocusInside(dialog: HTMLElement, event: KeyboardEvent) {
  const focusable = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (!first || !last) return;
  const active = document.activeElement;
  if (event.shiftKey && (active === first || active === dialog)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !dialog.contains(active))) {
    event.preventDefault();
    first.focus();
  }
}

/**
 * The cookie-consent modal (R4.7 to R4.11 in docs/requirements.md, D32 in
 * docs/decisions.md; WAI-ARIA APG "Dialog (Modal)"):
 * `role=dialog` with `aria-modal`, labelled by its heading and described by
 * its text. On open it takes focus itself, so a screen reader reads the
 * label and text and no answer is preselected; Tab and Shift+Tab cycle
 * inside it while the page behind is `inert`; Escape closes it, keeping the
 * current choice; on close, focus returns to where it was.
 *
 * @param view what the page shows of the consent actor (consentView.tsx)
 * @param consent the actor the visitor's answers are sent to
 */
export function ConsentDialog({
  view: { open, choice },
  consent,
  productName,
}: {
  view: ConsentView;
  consent: ConsentActor;
  productName: string;
}) {
  const dialogRef = useRef<HTMLDivElement>(null);
  const openerRef = useRef<Element | null>(null);

  // A layout effect: it runs in the commit that shows the modal, and turns
  // the page inert only once focus is inside the modal (the modal's chunk
  // arrives outside any event, D64, so a passive effect would run after
  // the browser had painted the modal without focus).
  useLayoutEffect(() => {
    const dialog = dialogRef.current;
    if (!open || !dialog) return;
    // When StrictMode reruns this effect, focus is already inside: keep the
    // opener found the first time.
    if (!dialog.contains(document.activeElement)) {
      openerRef.current = document.activeElement;
    }
    dialog.focus();
    // The page behind (src/views/PageShell.tsx), which the modal follows.
    const page = document.querySelector<HTMLElement>('.page');
    if (page) page.inert = true;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        consent.send({ type: 'modal.close' });
      } else if (event.key === 'Tab') {
        keepFocusInside(dialog, event);
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      if (page) page.inert = false;
      const opener = openerRef.current;
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
  }, [open, consent]);

  if (!open) return null;
  // D73: the rejection is the browser's signal's, not the visitor's (the
  // machine's selectSignalHonoured: the chunk imports none of the page's
  // modules, D64). Read at render: the source changes only with a choice,
  // which changes the view and so renders this again.
  const signalHonoured = consent.getSnapshot().context.choiceSource === 'gpc';

  return (
    <div className="consent-backdrop">
      {/* The dialog itself takes focus on open (APG), hence tabIndex -1. */}
      <div
        ref={dialogRef}
        className="consent"
        role="dialog"
        aria-modal="true"
        aria-labelledby="consent-title"
        aria-describedby="consent-text"
        data-testid="consent-modal"
        tabIndex={-1}
      >
        <h2 id="consent-title" className="consent__title">
          Marketing cookies on {productName}
        </h2>
        <div id="consent-text" className="consent__text">
          <p>
            With your permission we load a marketing and analytics tag from our
            advertising partners. It sets cookies that tell us which ads bring
            people to {productName} and how this page is used.
          </p>
          <p>
            Nothing is loaded unless you accept. You can change your mind at any
            time with “Cookie settings” at the bottom of the page.
          </p>
          {choice !== 'unset' && (
            <p className="consent__current">
              {signalHonoured
                ? 'Your browser sends a privacy signal (Global Privacy Control) asking sites not to share your data. We honour it: marketing cookies are rejected.'
                : `You have ${choice} marketing cookies.`}
            </p>
          )}
        </div>
        <div className="consent__actions">
          <button
            type="button"
            className="button button--choice"
            data-testid="consent-accept"
            onClick={() => consent.send({ type: 'consent.accept' })}
          >
            Accept marketing cookies
          </button>
          <button
            type="button"
            className="button button--choice"
            data-testid="consent-reject"
            onClick={() => consent.send({ type: 'consent.reject' })}
          >
            Reject marketing cookies
          </button>
        </div>
        {choice !== 'unset' && (
          <button
            type="button"
            className="consent__close"
            onClick={() => consent.send({ type: 'modal.close' })}
          >
            Close and keep my choice
          </button>
        )}
      </div>
    </div>
  );
}
