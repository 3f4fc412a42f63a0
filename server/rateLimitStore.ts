/**
 * The in-memory counter behind `SIGNUP_RATE_LIMIT` (docs/contract.md
 * "Configuration", D39 in docs/decisions.md), a store for @fastify/rate-limit.
 *
 * Why not the plugin's own LocalStore: it answers every increment with the
 * one object it keeps per key, and the plugin reads `current` from it only
 * after an `await`. Requests that reach the limiter in the same turn of the
 * event loop (released together by anything they awaited before it) all
 * increment first and then all read the last count, so all of them are
 * refused: 50 simultaneous sign-ups with a limit of 5 got 0 accounts
 * (tests/server/rateLimitLoad.test.ts). This store answers each increment
 * with a copy taken at that moment, so exactly `max` requests pass.
 */
import type {
  FastifyRateLimitOptions,
  FastifyRateLimitStore,
} from '@fastify/rate-limit';

interface CountWindow {
  count: number;
  startedAt: number;
}

/** As many keys (client addresses) as the plugin's LocalStore keeps. */
const DEFAULT_MAX_KEYS = 5000;

/**
 * Fixed windows per key: the first request starts a window of `timeWindow`
 * milliseconds, each request in it counts one, and the next request after
 * it starts a new one. The least recently seen key is forgotten beyond
 * `maxKeys` keys, which bounds the memory.
 */
export class SnapshotRateLimitStore implements FastifyRateLimitStore {
  readonly #windows = new Map<string, CountWindow>();
  readonly #maxKeys: number;
  readonly #now: () => number;

  /**
   * @param _options the plugin's options (the plugin passes them; unused)
   * @param maxKeys how many keys to remember
   * @param now the clock, in milliseconds (tests pass a fake)
   */
  constructor(
    _options?: FastifyRateLimitOptions,
    maxKeys = DEFAULT_MAX_KEYS,
    now: () => number = Date.now,
  ) {
    this.#maxKeys = maxKeys;
    this.#now = now;
  }

  /**
   * Counts one request for `key`.
   *
   * @param callback called synchronously with this request's own count in
   *   the window and the milliseconds left of it; never with an error
   */
  incr(
    key: string,
    callback: (
      error: Error | null,
      result?: { current: number; ttl: number },
    ) => void,
    timeWindow: number,
  ): void {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || window.startedAt + timeWindow <= now) {
      window = { count: 0, startedAt: now };
    }
    window.count += 1;
    // Re-inserting keeps the Map in order of last use.
    this.#windows.delete(key);
    this.#windows.set(key, window);
    if (this.#windows.size > this.#maxKeys) {
      const oldest = this.#windows.keys().next().value;
      if (oldest !== undefined) this.#windows.delete(oldest);
    }
    callback(null, {
      current: window.count,
      ttl: window.startedAt + timeWindow - now,
    });
  }

  /** A store of its own for a route with its own limit, as the plugin asks. */
  child(): SnapshotRateLimitStore {
    return new SnapshotRateLimitStore(undefined, this.#maxKeys, this.#now);
  }
}
