/**
 * The page's loader of its chunks (src/chunkLoader.ts; D58, D59, D71): one
 * fetch shared by the prefetch and the submit, and a new fetch after a
 * failed one. The chunk's import is the edge replaced here; the browser
 * tests (tests/browser/hostRuleChunk.test.ts, submitChunk.test.ts) fetch
 * the real ones.
 */
import { describe, expect, it, vi } from 'vitest';
import { checkHostName } from '../../common/domainName';
import type { HostRule } from '../../machines/signUpMachine';
import { signUpRules } from '../../common/signUpRules';
import { createChunkLoader, type ImportChunk } from '../../src/chunkLoader';
import {
  HOST_RULE_KEY,
  SUBMIT_CHUNK_KEY,
  type ChunkSlots,
} from '../../src/chunkSlots';

describe('createChunkLoader', () => {
  it('fetches the chunk once for every caller', async () => {
    const importChunk = vi.fn<ImportChunk<HostRule>>(async () => checkHostName);
    const load = createChunkLoader(importChunk);
    const [first, second] = await Promise.all([load(), load()]);
    expect(first).toBe(checkHostName);
    expect(second).toBe(checkHostName);
    await load();
    expect(importChunk).toHaveBeenCalledTimes(1);
  });

  it('rejects when the fetch fails, and fetches again on the next call', async () => {
    const offline = new TypeError(
      'Failed to fetch dynamically imported module',
    );
    const importChunk = vi
      .fn<ImportChunk<HostRule>>()
      .mockRejectedValueOnce(offline)
      .mockResolvedValueOnce(checkHostName);
    const load = createChunkLoader(importChunk);
    await expect(load()).rejects.toBe(offline);
    await expect(load()).resolves.toBe(checkHostName);
    expect(importChunk).toHaveBeenCalledTimes(2);
  });
});

describe('the chunks’ entries', () => {
  it('fill the slots the page’s loader reads (src/chunkSlots.ts)', async () => {
    const slots = globalThis as ChunkSlots;
    Reflect.deleteProperty(slots, SUBMIT_CHUNK_KEY);
    Reflect.deleteProperty(slots, HOST_RULE_KEY);
    await import('../../src/submitChunk');
    await import('../../src/hostRuleChunk');
    expect(slots[SUBMIT_CHUNK_KEY]?.rules).toBe(signUpRules);
    expect(slots[HOST_RULE_KEY]).toBe(checkHostName);
  });
});
