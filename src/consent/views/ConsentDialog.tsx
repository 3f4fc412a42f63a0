import { useLayoutEffect, useRef, type ReactNode } from 'react';
// Types only: the modal's chunk (ADR-0064) imports nothing but React, so the
// page's own bundle need not share its modules with it.
import type { ConsentActor, ConsentView } from './consentTypes';

/**
 * The cookie-consent modal (R4.7 to R4.11 in docs/requirements.md, ADR-0032;
 * WAI-ARIA APG "Dialog (Modal)"): the platform's
 * `<dialog>`, opened with `showModal()`, labelled by its heading and
 * described by its text. The browser puts it in the top layer over a
 * `::backdrop`, makes the rest of the document inert (Tab, the pointer and
 * hit testing never reach the page behind), turns Escape into a `cancel`
 * event and gives focus back to where it was when the dialog closes. On
 * open the dialog takes focus itself, so a screen reader reads the label
 * and text and no answer is preselected.
 *
 * The consent machine stays the only source of truth for open and closed:
 * the dialog is shown while its view says open and closed when it says
 * closed; Escape is refused to the browser and sent to the machine as
 * `modal.close` (which every open state takes: with no choice yet it
 * leaves the choice unset, ADR-0032); nothing else in it closes it (no
 * `form method=dialog`); and should the browser close it all the same (a
 * close request it does not let the page refuse), the machine hears
 * `modal.close`.
 *
 * @param view what the page shows of the consent actor (consentView.tsx)
 * @param consent the actor the visitor's answers are sent to
 */
export function ConsentDialog({
  view: { open, choice, signalHonoured },
  consent,
  productName,
}: {
  view: ConsentView;
  consent: ConsentActor;
  productName: string;
}): ReactNode {
  const dialogRef = useRef<HTMLDialogElement>(null);

  // A layout effect: the dialog shows, modal and with focus, in the commit
  // that renders it (the modal's chunk arrives outside any event, ADR-0064, so
  // a passive effect would run after the browser had painted it without
  // focus). Its cleanup runs while the dialog is still in the document,
  // when the view closes or the component unmounts, so close() can give
  // focus back.
  useLayoutEffect(() => {
    const dialog = dialogRef.current;
    if (!open || !dialog) return;
    const onCancel = (event: Event) => {
      event.preventDefault();
      consent.send({ type: 'modal.close' });
    };
    const onClose = () => {
      // Not while StrictMode's rerun has shown it again: the close event
      // of its first cleanup arrives after that.
      if (!dialog.open) consent.send({ type: 'modal.close' });
    };
    dialog.addEventListener('cancel', onCancel);
    dialog.addEventListener('close', onClose);
    // The dialog itself, not its first control, takes focus as it opens
    // (HTML's dialog focusing steps), so no answer is focused even for a
    // moment. Set here: React writes no autofocus attribute.
    dialog.autofocus = true;
    // Guarded: showModal() throws on a dialog already open.
    if (!dialog.open) dialog.showModal();
    dialog.focus();
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      dialog.removeEventListener('close', onClose);
      if (dialog.open) dialog.close();
    };
  }, [open, consent]);

  return (
    // The dialog itself takes focus on open (APG), hence tabIndex -1. The
    // role and aria-modal are the element's own; they are written out for
    // the contract's test selector, `[role=dialog][data-testid=consent-modal]`
    // (docs/contract.md), which outside tools select it by.
    // eslint-disable-next-line jsx-a11y/no-redundant-roles
    <dialog
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
    </dialog>
  );
}
