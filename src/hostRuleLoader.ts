/**
 * Loads the UTS #46 host rule (common/domainName.ts, with `tr46`) as a chunk
 * of its own: the page's first load holds only the ASCII rule, and this
 * chunk is fetched when the site URL holds a host with a non-ASCII
 * character or an `xn--` label (D58 in docs/decisions.md).
 */
import type { HostRule } from '../common/asciiHost';

/** Loads the rule's module; the page's is a dynamic `import()`. */
export type ImportHostRule = () => Promise<{ checkHostName: HostRule }>;

/**
 * @param importRule how the chunk is fetched (tests pass a fake)
 * @returns a loader: a promise of the rule, fetched once and shared by every
 *   caller; a failed fetch (offline) rejects and is tried again on the next
 *   call
 */
export function createHostRuleLoader(
  importRule: ImportHostRule = () => import('../common/domainName'),
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
