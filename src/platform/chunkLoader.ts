/**
 * How the page loads its chunks (D58, D71 in docs/decisions.md): once,
 * shared by every caller, and again after a failed fetch.
 */

/**
 * @param load fetches the chunk (its `import()`, or a test's fake)
 * @returns a loader: one promise, shared by every caller; a failure
 *   (offline) rejects, and the next call loads again
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

/**
 * Imports a chunk once its file has been fetched. Parcel evaluates each
 * `import()` once and keeps its promise, failed or not, and Firefox keeps
 * a failed module fetch for the document's life (HTML Standard, "fetch a
 * single module script"), so a chunk whose import failed once could never
 * arrive. The file is immutable: the import reads it from the HTTP cache.
 *
 * @param url the chunk's file, `new URL('../x.ts', import.meta.url)`, which
 *   Parcel resolves to the file `import('../x')` loads
 * @throws Error (the promise rejects) when the fetch fails or is refused
 */
export async function importFetched<T>(url: URL, load: () => Promise<T>) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: ${response.status}`);
  return load();
}
