/**
 * The policy revision a stored consent choice was made under (ADR-0067),
 * read one way by the consent machine, the page's
 * cookie adapter (src/platform/cookies.ts) and the inline script's consent default
 * (src/inputCapture/inlineScript.ts), which runs before the first paint and so must not
 * load the machine and xstate with it. Pure.
 */

import { REVISION_PATTERN } from '../contract/formats';

/**
 * The policy as first published (`CONSENT_REVISION`'s default): the
 * revision of a choice stored without one, which the page wrote before it
 * stored revisions.
 */
export const FIRST_REVISION = 1;

/**
 * Reads `{product}_CONSENT_REVISION`.
 *
 * @param value the cookie's value; undefined when there is none
 * @returns undefined when there is no cookie (a choice stored before
 *   revisions were: {@link FIRST_REVISION}); the revision when the value is
 *   a positive decimal integer (1 to 2³¹−1 fit its 10 digits); else 0,
 *   older than any policy, so a damaged cookie is asked again and never
 *   read as consent
 */
export function storedRevisionOf(
  value: string | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  return REVISION_PATTERN.test(value) ? Number(value) : 0;
}

/**
 * Whether a stored choice was made under the current policy (ADR-0067): its
 * revision, {@link FIRST_REVISION} when none is stored, is the current one
 * or later. A choice under an older revision counts as none.
 *
 * @param input.storedRevision from {@link storedRevisionOf}
 * @param input.revision `CONSENT_REVISION`, the policy's revision now
 */
export function choiceIsCurrent(input: {
  storedRevision: number | undefined;
  revision: number;
}): boolean {
  return (input.storedRevision ?? FIRST_REVISION) >= input.revision;
}
