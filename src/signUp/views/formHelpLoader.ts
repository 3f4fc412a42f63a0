/**
 * The form's help (formHelp.tsx: the e-mail typo suggestion, the error
 * summary's details), fetched after the first paint (ADR-0054, ADR-0077).
 */
import { useEffect, useState, type RefObject } from 'react';
import { chunkLoader } from '../../platform/chunkLoader';
import type * as FormHelp from './formHelp';
import { whenIdleOrInteracted } from './whenIdle';

/** What the form's help chunk holds. */
export type FormHelpModule = typeof FormHelp;

const loadFormHelp = chunkLoader(() => import('./formHelp'));

/**
 * Fetches the form's help when the browser is idle or the visitor first
 * interacts with the form (src/signUp/views/whenIdle.ts).
 *
 * @returns its module once it has arrived; undefined before, and when it
 *   cannot be fetched (the form works without its help)
 */
export function useFormHelp(
  formRef: RefObject<HTMLFormElement | null>,
): FormHelpModule | undefined {
  const [help, setHelp] = useState<FormHelpModule>();
  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    let mounted = true;
    const cancel = whenIdleOrInteracted(form, () => {
      loadFormHelp().then(
        (module) => {
          if (mounted) setHelp(module);
        },
        () => {},
      );
    });
    return () => {
      mounted = false;
      cancel();
    };
  }, [formRef]);
  return help;
}
