/**
 * The page's loading of its chunks (src/platform/chunkLoader.ts; ADR-0058,
 * ADR-0059, ADR-0071): one load shared by the prefetch and the submit, and a
 * new load after a failed one; and the import made only once the chunk's file
 * has been fetched, so that a failed fetch leaves no failed import behind. The
 * browser tests (tests/browser/hostRuleChunk.test.ts, submitChunk.test.ts,
 * and the model paths in every engine) fetch the real chunks.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkHostName } from '../../common/domainName';
import type { HostRule } from '../../common/asciiHost';
import { judgeForm } from '../../common/signUpRules';
import { importFetched, loadOnce } from '../../src/platform/chunkLoader';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('loadOnce', () => {
  it('loads the chunk once for every caller', async () => {
    const load = vi.fn(async (): Promise<HostRule> => checkHostName);
    const loader = loadOnce(load);
    const [first, second] = await Promise.all([loader(), loader()]);
    expect(first).toBe(checkHostName);
    expect(second).toBe(checkHostName);
    await loader();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('rejects when the load fails, and loads again on the next call', async () => {
    const offline = new TypeError('Failed to fetch');
    const load = vi
      .fn<() => Promise<HostRule>>()
      .mockRejectedValueOnce(offline)
      .mockResolvedValueOnce(checkHostName);
    const loader = loadOnce(load);
    await expect(loader()).rejects.toBe(offline);
    await expect(loader()).resolves.toBe(checkHostName);
    expect(load).toHaveBeenCalledTimes(2);
  });
});

describe('importFetched', () => {
  const chunk = new URL('https://vigil.example/submitChunk.1a2b3c4d.js');

  it('imports the chunk once its file has arrived, from the URL it was given', async () => {
    const fetched: string[] = [];
    vi.stubGlobal('fetch', async (url: URL) => {
      fetched.push(url.href);
      return new Response('', { status: 200 });
    });
    const module = { judgeForm };
    await expect(importFetched(chunk, async () => module)).resolves.toBe(
      module,
    );
    expect(fetched).toEqual([chunk.href]);
  });

  it.each([
    ['the network fails', () => Promise.reject(new TypeError('offline'))],
    [
      'the server answers an error',
      async () => new Response('', { status: 503 }),
    ],
  ])('imports nothing when %s', async (_, answer) => {
    vi.stubGlobal('fetch', answer);
    const load = vi.fn(async () => ({ judgeForm }));
    await expect(importFetched(chunk, load)).rejects.toThrow();
    expect(load).not.toHaveBeenCalled();
  });

  it('names the chunk and the status when the server refuses it', async () => {
    vi.stubGlobal('fetch', async () => new Response('', { status: 404 }));
    await expect(
      importFetched(chunk, async () => ({ judgeForm })),
    ).rejects.toThrow('/submitChunk.1a2b3c4d.js: 404');
  });
});

describe('the chunks’ entries', () => {
  it('export what the page asks of them', async () => {
    const submit = await import('../../src/signUp/submitChunk');
    const hostRule = await import('../../src/signUp/hostRuleChunk');
    expect(submit.judgeForm).toBe(judgeForm);
    expect(typeof submit.createSignUpClient).toBe('function');
    expect(typeof submit.prefillOf).toBe('function');
    expect(typeof submit.siteUrlNeedsIdnRule).toBe('function');
    expect(hostRule.checkHostName).toBe(checkHostName);
  });
});
