/**
 * What the visitor did before the app ran. The prerendered form works from
 * the first paint: the visitor may type, tick boxes and submit before the
 * script has run (src/inputCapture/inputCapture.ts holds the submit). React keeps the
 * typed values in the DOM when it adopts the markup but does not know
 * them; this hands them to the sign-up machine, as the events typing would
 * have sent, then carries out a held submit.
 */
import { useEffect, useLayoutEffect, type RefObject } from 'react';
import {
  type CheckboxField,
  type SignUpValues,
  type TextField,
} from '../../../machines/signUpMachine';
import { selectValues } from '../../../machines/signUpSelectors';
import type { SignUpActor } from './signUpActor';

const TEXT_FIELDS: readonly TextField[] = ['name', 'email', 'url'];
const CHECKBOX_FIELDS: readonly CheckboxField[] = ['newsletter', 'tos'];

function inputOf(form: HTMLFormElement, name: string) {
  const input = form.elements.namedItem(name);
  return input instanceof HTMLInputElement ? input : undefined;
}

/**
 * On the first commit (before the browser paints it), sends the machine a
 * `field.change` for every text field whose value differs from the
 * machine's and is not empty, a `checkbox.change` for every box whose state
 * differs; then, once the page's other effects are in place (call this
 * after the effects that listen to the machine's emitted events, which
 * move the focus), `submit` if one was held. A field prefilled from the
 * address was empty in the prerendered form, so an empty field keeps its
 * prefill, and anything typed replaces it, as typing after the app ran
 * would.
 */
export function useCapturedInput(
  formRef: RefObject<HTMLFormElement | null>,
  actorRef: SignUpActor,
): void {
  useLayoutEffect(() => {
    const form = formRef.current;
    if (!form) return;
    const values = selectValues(actorRef.getSnapshot());
    for (const field of TEXT_FIELDS) {
      const value = inputOf(form, field)?.value ?? '';
      if (value !== '' && value !== values[field]) {
        actorRef.send({ type: 'field.change', field, value });
      }
    }
    for (const field of CHECKBOX_FIELDS) {
      const checked = inputOf(form, field)?.checked ?? values[field];
      if (checked !== values[field]) {
        actorRef.send({ type: 'checkbox.change', field, checked });
      }
    }
  }, [formRef, actorRef]);
  useEffect(() => {
    if (window.vigilHeldSubmit?.release()) actorRef.send({ type: 'submit' });
  }, [actorRef]);
}

/** The e-mail and site URL an address prefills, judged (src/signUp/prefill.ts). */
export type LatePrefill = Partial<Pick<SignUpValues, 'email' | 'url'>>;

/**
 * The address's e-mail and site URL, which the form's rules judge once
 * their chunk has arrived (R2.4, ADR-0071): each sent to the machine as typing
 * would, unless the visitor has typed into that field meanwhile (typed
 * text wins over a prefill, as in {@link useCapturedInput}).
 */
export function useLatePrefill(
  actorRef: SignUpActor,
  latePrefill: Promise<LatePrefill> | undefined,
): void {
  useEffect(() => {
    let mounted = true;
    void latePrefill?.then((prefill) => {
      if (!mounted) return;
      const values = selectValues(actorRef.getSnapshot());
      for (const field of ['email', 'url'] as const) {
        const value = prefill[field];
        if (value !== undefined && values[field] === '') {
          actorRef.send({ type: 'field.change', field, value });
        }
      }
    });
    return () => {
      mounted = false;
    };
  }, [actorRef, latePrefill]);
}
