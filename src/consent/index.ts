/**
 * What the rest of the page and the build may use of consent/
 * (ADR-0116): the attribute that marks a page
 * for Global Privacy Control. Never a chunk's module (./tagEffects.ts,
 * ./consentSender.ts, ./views/ConsentDialog.tsx): re-exported here, it
 * would join the first load. The inline script takes ./consentDefault.ts
 * and ./consentSignals.ts directly (src/inputCapture/inlineScript.ts).
 */
export { GPC_ATTRIBUTE } from './consentSignals';
