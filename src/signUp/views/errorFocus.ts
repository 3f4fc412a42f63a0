import { useEffect, useRef, useState, type RefObject } from 'react';
import type { SignUpActor } from './signUpActor';

/**
 * Moves focus to the error summary each time the machine shows errors
 * (`errors.shown`), once they have rendered: GOV.UK's error summary, so a
 * screen reader reads the problem and a keyboard user starts from it.
 *
 * @returns the ref to put on the summary
 */
export function useErrorFocus(
  actorRef: SignUpActor,
): RefObject<HTMLDivElement | null> {
  const summaryRef = useRef<HTMLDivElement>(null);
  // Bumped when the machine shows errors; focus follows once they render.
  const [errorsShown, setErrorsShown] = useState(0);
  useEffect(() => {
    const subscription = actorRef.on('errors.shown', () =>
      setErrorsShown((count) => count + 1),
    );
    return () => subscription.unsubscribe();
  }, [actorRef]);
  useEffect(() => {
    if (errorsShown > 0) summaryRef.current?.focus();
  }, [errorsShown]);
  return summaryRef;
}
