/**
 * The host rule's chunk ([D58](../../docs/decisions.md#D58), [D59](../../docs/decisions.md#D59)): the UTS #46 rule
 * of common/domainName.ts, with `tr46`, which the page imports only when
 * the site URL's host needs it (src/app.tsx).
 */
export { checkHostName } from '../../common/domainName';
