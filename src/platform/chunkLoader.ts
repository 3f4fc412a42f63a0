/**
 * How the page loads its seven lazy chunks, one way for all
 * (ADR-0116): one load shared by every caller,
 * and a new load after a failed one. Parcel evaluates each `import()` once
 * and keeps its promise, failed or not, so a new load can succeed only
 * where the chunk's file is fetched before its import
 * (ADR-0071): the submit chunk and the host
 * rule's, without which nothing can be sent. The other five (the form's
 * help, the consent modal, the records' sender, the tag's effects,
 * Sentry) are asked again by their callers, but a failed import of theirs
 * stays failed until the next page load: naming their file made Parcel
 * move React into a second script of the first load (the modal's) and
 * copy the modules they share with it into them (measured).
 */

/**
 * A chunk's loader: its import, once for every caller ({@link loadOnce});
 * with its file, the import is made only once the file has arrived
 * ({@link importFetched}), so that a failed fetch is fetched again.
 *
 * @param load the chunk's `import('./x')` (a test's fake in its place),
 *   with whatever must run once after it
 * @param file the chunk's file, `new URL('./x.ts', import.meta.url)`,
 *   fetched before the import (the submit chunk and the host rule's)
 * @returns the loader: one promise, shared by every caller; a failure
 *   (offline) rejects, and the next call loads again
 */
export function chunkLoader<T>(
  load: () => Promise<T>,
  file?: URL,
): () => Promise<T> {
  return loadOnce(file ? () => importFetched(file, load) : load);
}

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
 * @param url the chunk's file, `new URL('./x.ts', import.meta.url)`, which
 *   Parcel resolves to the file `import('./x')` loads
 * @throws Error (the promise rejects) when the fetch fails or is refused
 */
export async function importFetched<T>(url: URL, load: () => Promise<T>) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: ${response.status}`);
  return load();
}
