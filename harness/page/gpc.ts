/**
 * A browser that sends Global Privacy Control (ADR-0073, ADR-0074), for the
 * browser tests and the atlas: none of the engines here sends it by default.
 */

/**
 * How the browser sends it: `property`, `navigator.globalPrivacyControl`
 * set to true by a script that runs before the page's own (as a browser
 * that implements GPC, or an extension's content script, provides it);
 * `header`, `Sec-GPC: 1` on every request, without the property (a browser
 * or an extension that sends only the header).
 */
export type GpcMode = 'property' | 'header';

/** The init script of {@link GpcMode} `property`. */
export const GPC_INIT_SCRIPT =
  "Object.defineProperty(navigator, 'globalPrivacyControl', { get: () => true, configurable: true });";

/** The request header of {@link GpcMode} `header` (GPC specification). */
export const GPC_HEADER = { name: 'Sec-GPC', value: '1' } as const;
