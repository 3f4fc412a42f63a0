/**
 * Where the page's isolated chunks (src/hostRuleChunk.ts,
 * src/submitChunk.ts) leave what they hold for the page's loader
 * (src/chunkLoader.ts): an isolated chunk exports nothing.
 */
import type { HostRule, SignUpRules } from '../machines/signUpMachine';
import type { prefillOf } from '../common/validation';
import type { createSignUpClient } from './signUpClient';

/**
 * What the submit chunk holds (D71): the form's rules (common/signUpRules.ts,
 * common/validation.ts) and the API client (src/signUpClient.ts).
 */
export interface SubmitChunk {
  /** The rules the sign-up machine judges the form with. */
  rules: SignUpRules;
  /** What of the address's e-mail and site URL prefills the form (R2.4). */
  prefillOf: typeof prefillOf;
  /** Whether the site URL's host needs the UTS #46 host rule (D58). */
  siteUrlNeedsIdnRule: (raw: string) => boolean;
  createSignUpClient: typeof createSignUpClient;
}

/** Registered symbols: no page script can clash with them by accident. */
export const HOST_RULE_KEY = Symbol.for('vigil.hostRule');
export const SUBMIT_CHUNK_KEY = Symbol.for('vigil.submitChunk');

/** The global object, with the slots the chunks fill. */
export type ChunkSlots = typeof globalThis & {
  [HOST_RULE_KEY]?: HostRule;
  [SUBMIT_CHUNK_KEY]?: SubmitChunk;
};
