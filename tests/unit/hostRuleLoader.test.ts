/**
 * The page's loader of the host rule's chunk (src/hostRuleLoader.ts, D58,
 * D59): one fetch shared by the prefetch and the submit, and a new fetch
 * after a failed one. The chunk's import is the edge replaced here; the
 * browser test (tests/browser/hostRuleChunk.test.ts) fetches the real one.
 */
import { describe, expect, it, vi } from 'vitest';
import { checkHostName } from '../../common/domainName';
import {
  createHostRuleLoader,
  type ImportHostRule,
} from '../../src/hostRuleLoader';

describe('createHostRuleLoader', () => {
  it('fetches the chunk once for every caller', async () => {
    const importRule = vi.fn<ImportHostRule>(async () => ({ checkHostName }));
    const load = createHostRuleLoader(importRule);
    const [first, second] = await Promise.all([load(), load()]);
    expect(first).toBe(checkHostName);
    expect(second).toBe(checkHostName);
    await load();
    expect(importRule).toHaveBeenCalledTimes(1);
  });

  it('rejects when the fetch fails, and fetches again on the next call', async () => {
    const offline = new TypeError(
      'Failed to fetch dynamically imported module',
    );
    const importRule = vi
      .fn<ImportHostRule>()
      .mockRejectedValueOnce(offline)
      .mockResolvedValueOnce({ checkHostName });
    const load = createHostRuleLoader(importRule);
    await expect(load()).rejects.toBe(offline);
    await expect(load()).resolves.toBe(checkHostName);
    expect(importRule).toHaveBeenCalledTimes(2);
  });
});
