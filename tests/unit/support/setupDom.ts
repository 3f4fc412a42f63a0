import { afterEach } from 'vitest';

// Globals are off, so Testing Library cannot register its own cleanup.
// Only where there is a DOM to render into (a file in jsdom): the import
// loads React's DOM renderer, about 0.1 s per file in a fresh worker,
// which the rules' and machines' files in Node need not pay (every file
// does, per mutant, under StrykerJS: docs/mutation.md).
if (typeof document !== 'undefined') {
  const { cleanup } = await import('@testing-library/react');
  afterEach(() => cleanup());
}

/*
 * jsdom (29) has the <dialog> element and its `open` attribute but neither
 * showModal() nor close(), nor the close request Escape makes; the consent
 * modal (src/consent/views/ConsentDialog.tsx) is the platform's modal dialog. The
 * environment is the edge the tests do not own, so it gets the part of the
 * HTML standard they use, and no more: showModal() sets `open`, close()
 * removes it and fires `close`, and Escape on an open modal dialog fires a
 * cancelable `cancel` at it, closing it unless cancelled. No top layer, no
 * inert page and no focus return: the browser tests check those in three
 * engines (tests/browser/engines.test.ts).
 */
if (
  typeof HTMLDialogElement !== 'undefined' &&
  !('showModal' in HTMLDialogElement.prototype)
) {
  const modal = new WeakSet<HTMLDialogElement>();
  Object.assign(HTMLDialogElement.prototype, {
    showModal(this: HTMLDialogElement) {
      if (this.open && !modal.has(this)) {
        throw new DOMException('The dialog is open', 'InvalidStateError');
      }
      this.setAttribute('open', '');
      modal.add(this);
    },
    close(this: HTMLDialogElement) {
      if (!this.open) return;
      this.removeAttribute('open');
      modal.delete(this);
      setTimeout(() => this.dispatchEvent(new Event('close')), 0);
    },
  });
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || event.defaultPrevented) return;
    const dialog = [
      ...document.querySelectorAll<HTMLDialogElement>('dialog[open]'),
    ]
      .filter((open) => modal.has(open))
      .at(-1);
    if (!dialog) return;
    const cancel = new Event('cancel', { cancelable: true });
    if (dialog.dispatchEvent(cancel)) dialog.close();
  });
}
