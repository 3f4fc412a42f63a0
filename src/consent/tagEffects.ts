/**
 * The marketing tag's effects, as one chunk (ADR-0076):
 * loading and removing its script (src/consent/trackingTag.ts) and deleting its
 * cookies (src/consent/trackerCookies.ts). The page fetches it only when a choice
 * is stored or made; a first visit without one never does.
 */
export { loadTrackingTag, removeTrackingTag } from './trackingTag';
export { deleteTrackerCookies } from './trackerCookies';
