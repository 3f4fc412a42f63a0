/**
 * Keeps the sign-up draft (src/inputCapture/draft.ts, ADR-0055) in step with
 * the machine, which owns the values: written on every change of the values,
 * never while the request runs, deleted once the account is created.
 */
import { useEffect } from 'react';
import { type SignUpValues } from '../../../machines/signUpMachine';
import {
  selectProgress,
  selectValues,
} from '../../../machines/signUpSelectors';
import { deleteDraft, writeDraft, type DraftPlace } from '../../inputCapture';
import type { SignUpActor } from './signUpActor';

/**
 * Subscribes to the machine while mounted: writes its values as the draft
 * now and whenever they change while the form is being edited (progress
 * `editing`), skips them while the request is sent (`sending`), and
 * deletes the draft on `signedUp`. Nothing when `draft` is undefined.
 */
export function useDraftSync(
  actorRef: SignUpActor,
  draft: DraftPlace | undefined,
): void {
  useEffect(() => {
    if (!draft) return;
    let written: SignUpValues | undefined;
    const sync = (snapshot: ReturnType<SignUpActor['getSnapshot']>) => {
      const progress = selectProgress(snapshot);
      if (progress === 'signedUp') {
        deleteDraft(draft);
        return;
      }
      const values = selectValues(snapshot);
      // The machine replaces its values object on every edit.
      if (progress === 'sending' || values === written) return;
      written = values;
      writeDraft(draft, values);
    };
    sync(actorRef.getSnapshot());
    const subscription = actorRef.subscribe(sync);
    return () => subscription.unsubscribe();
  }, [actorRef, draft]);
}
