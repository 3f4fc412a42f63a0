/**
 * The submit chunk (ADR-0071): what a submit needs and the
 * page's first load does not, the form's rules (common/signUpRules.ts, with
 * yup) and the API client (src/signUp/signUpClient.ts). The page imports it once
 * the visitor starts typing, or the address prefills an e-mail or a site
 * URL (src/app.tsx); the bundler makes it a file of its own.
 */
export { judgeForm } from '../../common/signUpRules';
export { prefillOf, siteUrlNeedsIdnRule } from '../../common/validation';
export { createSignUpClient } from './signUpClient';
