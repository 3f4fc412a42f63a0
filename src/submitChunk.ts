/**
 * The entry of the submit chunk (D71 in docs/decisions.md): what a submit
 * needs and the page's first load does not, the form's rules
 * (common/signUpRules.ts, with yup) and the API client
 * (src/signUpClient.ts). The page fetches it once the visitor starts typing
 * (or the address prefills an e-mail or a site URL), as a module of its own URL
 * (src/chunkLoader.ts), so that a failed fetch can be tried again; it hands
 * what it holds over under {@link SUBMIT_CHUNK_KEY}.
 */
import { signUpRules } from '../common/signUpRules';
import { prefillOf, siteUrlNeedsIdnRule } from '../common/validation';
import type { ChunkSlots, SUBMIT_CHUNK_KEY } from './chunkSlots';
import { createSignUpClient } from './signUpClient';

// The key's registered name, as chunkSlots.ts has it: a module the chunk
// shared with the page's bundle would be wrapped there, and cost the first
// load more (D71). tests/unit/chunkLoader.test.ts holds both to one key.
(globalThis as ChunkSlots)[
  Symbol.for('vigil.submitChunk') as typeof SUBMIT_CHUNK_KEY
] = {
  rules: signUpRules,
  prefillOf,
  siteUrlNeedsIdnRule,
  createSignUpClient,
};
