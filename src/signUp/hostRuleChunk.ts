/**
 * The host rule's chunk (D58, D59 in docs/decisions.md): the UTS #46 rule
 * of common/domainName.ts, with `tr46`, which the page imports only when
 * the site URL's host needs it (src/app.tsx).
 */
export { checkHostName } from '../../common/domainName';
