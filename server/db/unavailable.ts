/**
 * The one error every repository raises when the database fails, and the
 * wrapper that raises it: a module of its own, apart from
 * server/db/database.ts, so that what answers an error (the HTTP error
 * answers, the rules that use them) does not load the database drivers.
 */

/**
 * The database failed or could not be reached during a query. The driver's
 * error is its `cause`: never log the cause's `detail`, which may quote a
 * row.
 */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super('the database did not complete the query', { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * Runs a query, raising {@link DatabaseUnavailableError} (the driver's
 * error as its cause) when the database fails or cannot be reached.
 *
 * @param run the query
 * @returns what it returns
 */
export async function unlessUnavailable<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new DatabaseUnavailableError(error);
  }
}
