/**
 * Loads the UTS #46 host rule (common/domainName.ts, with `tr46`) as a chunk
 * of its own: the page's first load holds only the ASCII rule, and this
 * chunk is fetched when the site URL holds a host with a non-ASCII
 * character or an `xn--` label (D58 in docs/decisions.md).
 *
 * The chunk is imported as a module by its own URL. A module whose fetch
 * failed stays failed for that URL for the document's life (HTML Standard,
 * "fetch a single module script": the module map keeps the failure), so a
 * retry after a failure (offline, D59) asks for the same file with a query
 * that makes the URL new.
 */
import type { HostRule } from '../common/asciiHost';
import { HOST_RULE_KEY, type HostRuleSlot } from './hostRuleSlot';

/** Loads the rule's module; the page's fetches the chunk. */
export type ImportHostRule = () => Promise<{ checkHostName: HostRule }>;

/**
 * The page's importer: the chunk's URL from the bundler (an isolated
 * bundle of src/hostRuleChunk.ts), then the rule it leaves behind.
 */
function importChunk(): ImportHostRule {
  const chunk = new URL('./hostRuleChunk.ts', import.meta.url);
  let attempts = 0;
  return async () => {
    attempts += 1;
    const url = new URL(chunk);
    if (attempts > 1) url.searchParams.set('attempt', String(attempts));
    await import(/* webpackIgnore: true */ url.href);
    const checkHostName = (globalThis as HostRuleSlot)[HOST_RULE_KEY];
    if (!checkHostName) throw new Error('the host rule chunk left no rule');
    return { checkHostName };
  };
}

/**
 * @param importRule how the chunk is fetched (tests pass a fake)
 * @returns a loader: a promise of the rule, fetched once and shared by every
 *   caller; a failed fetch (offline) rejects and is tried again on the next
 *   call
 */
export function createHostRuleLoader(
  importRule: ImportHostRule = importChunk(),
): () => Promise<HostRule> {
  let loading: Promise<HostRule> | undefined;
  return () => {
    loading ??= importRule().then(
      (module) => module.checkHostName,
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
}
