/**
 * The entry of the host rule's chunk (D58, D59 in docs/decisions.md): the
 * UTS #46 rule of common/domainName.ts, with `tr46`. The page fetches it
 * as a module of its own URL (src/chunkLoader.ts) rather than through
 * the bundler's `import()`, so that a failed fetch can be tried again; an
 * isolated chunk exports nothing, so it hands the rule over under
 * `HOST_RULE_KEY` of src/chunkSlots.ts.
 */
import { checkHostName } from '../common/domainName';
import type { ChunkSlots, HOST_RULE_KEY } from './chunkSlots';

// The key's registered name, as chunkSlots.ts has it (see
// src/submitChunk.ts for why it is not imported).
(globalThis as ChunkSlots)[
  Symbol.for('vigil.hostRule') as typeof HOST_RULE_KEY
] = checkHostName;
