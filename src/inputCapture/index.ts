/**
 * What the rest of the page may use of inputCapture/
 * (ADR-0116): the sign-up form's id, the
 * hand-over of a held submit, and the draft's storage. The inline script
 * itself is the entry ./inlineScript.ts, which the build bundles on its
 * own.
 */
export { SIGN_UP_FORM_ID, type HeldSubmit } from './inputCapture';
export { deleteDraft, draftKey, writeDraft, type DraftPlace } from './draft';
