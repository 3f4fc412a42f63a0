/**
 * The page's loader of its chunks (src/chunkLoader.ts; D58, D59, D71): one
 * fetch shared by the prefetch and the submit, and a new fetch after a
 * failed one; and the importer by URL, over module files of its own (a
 * retry asks for a new URL, as the module map keeps a failed fetch). The
 * browser tests (tests/browser/hostRuleChunk.test.ts, submitChunk.test.ts)
 * fetch the real chunks.
 */
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkHostName } from '../../common/domainName';
import type { HostRule } from '../../machines/signUpMachine';
import { signUpRules } from '../../common/signUpRules';
import {
  createChunkLoader,
  importIsolatedChunk,
  type ImportChunk,
} from '../../src/chunkLoader';
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

describe('importIsolatedChunk', () => {
  // Real module files, imported by their file: URLs. Under node_modules,
  // vitest leaves a module to Node's own loader, which keeps one module per
  // URL, query included, as the browser's module map does; the module
  // leaves the URL it was imported by in its slot, so a test sees which URL
  // was asked for.
  let chunk: URL;
  const slots = globalThis as ChunkSlots;
  const writeChunk = (body: string) =>
    writeFile(fileURLToPath(chunk), body, 'utf8');
  const fillingSlot = `globalThis[Symbol.for('vigil.hostRule')] = { from: import.meta.url };`;
  // Where vitest itself is installed, wherever the tests run from.
  const NODE_MODULES = dirname(
    dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  );
  const askedFor = (held: unknown) => new URL((held as { from: string }).from);

  beforeEach(async () => {
    // The real path: Node names a module by it.
    const dir = await realpath(
      await mkdtemp(join(NODE_MODULES, '.vigil-chunk-')),
    );
    chunk = pathToFileURL(join(dir, 'hostRuleChunk.mjs'));
    Reflect.deleteProperty(slots, HOST_RULE_KEY);
  });

  afterEach(async () => {
    Reflect.deleteProperty(slots, HOST_RULE_KEY);
    await rm(new URL('.', chunk), { recursive: true, force: true });
  });

  it('imports the chunk by its own URL and resolves with what it left in its slot', async () => {
    await writeChunk(fillingSlot);
    const held = await importIsolatedChunk(chunk, HOST_RULE_KEY)();
    expect(askedFor(held).href).toBe(chunk.href);
  });

  it('after a failed fetch asks for the same file by a new URL (the module map keeps a failure for its URL)', async () => {
    const importChunk = importIsolatedChunk(chunk, HOST_RULE_KEY);
    await expect(importChunk()).rejects.toThrow();
    await writeChunk(fillingSlot);
    const asked = askedFor(await importChunk());
    expect(asked.href).not.toBe(chunk.href);
    expect(asked.pathname).toBe(chunk.pathname);
    expect(asked.searchParams.get('attempt')).toBe('2');
  });

  it.each([
    ['nothing', ''],
    ['null', `globalThis[Symbol.for('vigil.hostRule')] = null;`],
  ])(
    'rejects, naming the chunk, when the module leaves %s in its slot',
    async (_what, body) => {
      await writeChunk(body);
      await expect(importIsolatedChunk(chunk, HOST_RULE_KEY)()).rejects.toThrow(
        `the chunk ${chunk.pathname} left nothing behind`,
      );
    },
  );
});
