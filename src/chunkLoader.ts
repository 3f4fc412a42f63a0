/**
 * Loads the chunks the page fetches after its first load (D58, D71 in
 * docs/decisions.md): the form's rules (src/submitChunk.ts), fetched once
 * the visitor starts typing, and the UTS #46 host rule with `tr46`
 * (src/hostRuleChunk.ts), fetched when the site URL holds a host with a
 * non-ASCII character or an `xn--` label.
 *
 * Each chunk is imported as a module by its own URL. A module whose fetch
 * failed stays failed for that URL for the document's life (HTML Standard,
 * "fetch a single module script": the module map keeps the failure), so a
 * retry after a failure (offline, D59) asks for the same file with a query
 * that makes the URL new.
 */
import type { ChunkSlots } from './chunkSlots';

/** Fetches a chunk and resolves with what it holds. */
export type ImportChunk<T> = () => Promise<T>;

/**
 * The page's importer of an isolated chunk: `chunk` is its URL from the
 * bundler (`new URL('./x.ts', import.meta.url)`), `key` the slot it fills
 * (src/chunkSlots.ts).
 *
 * @throws Error (the promise rejects) when the fetch fails, or when the
 *   module left nothing under `key`
 */
export function importIsolatedChunk<K extends keyof ChunkSlots>(
  chunk: URL,
  key: K,
): ImportChunk<NonNullable<ChunkSlots[K]>> {
  let attempts = 0;
  return async () => {
    attempts += 1;
    const url = new URL(chunk);
    if (attempts > 1) url.searchParams.set('attempt', String(attempts));
    await import(/* webpackIgnore: true */ url.href);
    const held = (globalThis as ChunkSlots)[key];
    if (held === undefined || held === null) {
      throw new Error(`the chunk ${chunk.pathname} left nothing behind`);
    }
    return held as NonNullable<ChunkSlots[K]>;
  };
}

/**
 * @param importChunk how the chunk is fetched (tests pass a fake)
 * @returns a loader: a promise of what the chunk holds, fetched once and
 *   shared by every caller; a failed fetch (offline) rejects and is tried
 *   again on the next call
 */
export function createChunkLoader<T>(
  importChunk: ImportChunk<T>,
): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= importChunk().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
