/**
 * Where the host rule's chunk (src/hostRuleChunk.ts) leaves the rule for
 * the page's loader (src/hostRuleLoader.ts).
 */
import type { HostRule } from '../common/asciiHost';

/** A registered symbol: no page script can clash with it by accident. */
export const HOST_RULE_KEY = Symbol.for('vigil.hostRule');

/** The global object, with the slot the chunk fills. */
export type HostRuleSlot = typeof globalThis & {
  [HOST_RULE_KEY]?: HostRule;
};
