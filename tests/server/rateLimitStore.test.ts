/**
 * The rate limit's counter (server/rateLimitStore.ts): fixed windows per
 * key, a snapshot per increment, bounded memory.
 */
import { describe, expect, it } from 'vitest';
import { SnapshotRateLimitStore } from '../../server/rateLimitStore';

const WINDOW = 15 * 60 * 1000;

function counter(maxKeys?: number) {
  let now = 1_000_000;
  const store = new SnapshotRateLimitStore(undefined, maxKeys, () => now);
  const incr = (key: string) => {
    let result: { current: number; ttl: number } | undefined;
    store.incr(
      key,
      (error, answer) => {
        expect(error).toBeNull();
        result = answer;
      },
      WINDOW,
    );
    if (!result) throw new Error('incr did not answer synchronously');
    return result;
  };
  return {
    store,
    incr,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('SnapshotRateLimitStore', () => {
  it('counts per key, and each answer is its own snapshot', () => {
    const { incr } = counter();
    const first = incr('a');
    const second = incr('a');
    incr('a');
    expect(first.current).toBe(1);
    expect(second.current).toBe(2);
    expect(incr('b').current).toBe(1);
  });

  it('gives the time left in the window, and starts a new one after it', () => {
    const { incr, advance } = counter();
    expect(incr('a')).toEqual({ current: 1, ttl: WINDOW });
    advance(WINDOW - 1);
    expect(incr('a')).toEqual({ current: 2, ttl: 1 });
    advance(1);
    expect(incr('a')).toEqual({ current: 1, ttl: WINDOW });
  });

  it('forgets the least recently seen key beyond maxKeys', () => {
    const { incr } = counter(2);
    incr('a');
    incr('b');
    incr('a');
    incr('c'); // forgets b, seen less recently than a
    expect(incr('a').current).toBe(3);
    expect(incr('b').current).toBe(1);
  });

  it('gives a route a store of its own', () => {
    const { store, incr } = counter();
    incr('a');
    const child = store.child();
    let current = 0;
    child.incr(
      'a',
      (_error, result) => {
        current = result?.current ?? 0;
      },
      WINDOW,
    );
    expect(current).toBe(1);
  });
});
