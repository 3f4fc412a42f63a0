/**
 * The marketing/analytics tag (R1.3, R4.8 and R4.9 in
 * docs/requirements.md): one `<script>` element,
 * `script[data-testid=tracking-tag]` (docs/contract.md "Test selectors"), loaded
 * only after consent.
 */

const TAG_SELECTOR = 'script[data-testid="tracking-tag"]';

/**
 * Appends the tag's script to `<head>`, once: a second call while it is
 * there does nothing (so a repeated entry action, as under React
 * StrictMode, cannot load it twice).
 *
 * @param doc the page's document
 * @param url the tag's absolute URL (`TRACKING_TAG_URL`)
 */
export function loadTrackingTag(doc: Document, url: string): void {
  if (doc.querySelector(TAG_SELECTOR)) return;
  const script = doc.createElement('script');
  script.async = true;
  script.src = url;
  script.dataset.testid = 'tracking-tag';
  doc.head.append(script);
}

/**
 * Removes the tag's script element. Code the tag already ran stays in
 * memory until the next page load; its cookies are deleted separately
 * (src/platform/cookies.ts `deleteTrackerCookies`).
 */
export function removeTrackingTag(doc: Document): void {
  for (const script of doc.querySelectorAll(TAG_SELECTOR)) script.remove();
}
