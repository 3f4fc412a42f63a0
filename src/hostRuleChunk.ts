/**
 * The entry of the host rule's chunk (D58, D59 in docs/decisions.md): the
 * UTS #46 rule of common/domainName.ts, with `tr46`. The page fetches it
 * as a module of its own URL (src/hostRuleLoader.ts) rather than through
 * the bundler's `import()`, so that a failed fetch can be tried again; an
 * isolated chunk exports nothing, so it hands the rule over under
 * {@link HOST_RULE_KEY}.
 */
import { checkHostName } from '../common/domainName';
import { HOST_RULE_KEY, type HostRuleSlot } from './hostRuleSlot';

(globalThis as HostRuleSlot)[HOST_RULE_KEY] = checkHostName;
