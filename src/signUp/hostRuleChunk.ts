/**
 * The host rule's chunk (ADR-0058, ADR-0059): the UTS #46 rule
 * of common/domainName.ts, with `tr46`, which the page imports only when
 * the site URL's host needs it (src/app.tsx).
 */
export { checkHostName } from '../../common/domainName';
