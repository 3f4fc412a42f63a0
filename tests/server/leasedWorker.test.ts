/**
 * The leased workers' one loop (server/db/leasedWorker.ts; issue 60, "write
 * it once"): slots, a slot given back by an item that holds it too long,
 * the two stops, and drain. The work is a fake that the test holds: its
 * claims hand out numbered items, and each item's work ends when the test
 * says so.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLog as silent } from './support/silentLog';
import {
  leasedWorker,
  type LeasedWorkerSettings,
} from '../../server/db/leasedWorker';

/** Due items 1…`due`, worked on until the test ends each. */
function heldWork(due: number) {
  let next = 1;
  const running = new Map<number, () => void>();
  const aborted: number[] = [];
  const released: number[] = [];
  const finished: number[] = [];
  let most = 0;
  let claims = 0;
  return {
    running,
    aborted,
    released,
    finished,
    most: () => most,
    /** Claims made so far, found items or not. */
    claims: () => claims,
    work: {
      claim(limit: number) {
        claims += 1;
        const items: number[] = [];
        while (items.length < limit && next <= due) items.push(next++);
        return Promise.resolve(items);
      },
      work(item: number, signal: AbortSignal) {
        return new Promise<void>((resolve) => {
          running.set(item, () => {
            running.delete(item);
            finished.push(item);
            resolve();
          });
          most = Math.max(most, running.size);
          signal.addEventListener('abort', () => {
            aborted.push(item);
            running.delete(item);
            resolve();
          });
        });
      },
      release(items: readonly number[]) {
        released.push(...items);
        return Promise.resolve();
      },
    },
  };
}

const settings = (
  more: Partial<LeasedWorkerSettings> = {},
): LeasedWorkerSettings => ({
  concurrency: 3,
  pollMs: 60_000,
  onStop: 'finish',
  what: 'items',
  log: silent,
  ...more,
});

/** Lets the loop's promises and due timers run. */
async function settle(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the leased worker', () => {
  it('works on at most `concurrency` items at once, and claims more as each ends', async () => {
    vi.useFakeTimers();
    const held = heldWork(7);
    const worker = leasedWorker(held.work, settings());
    worker.start();
    await settle();
    expect([...held.running.keys()]).toEqual([1, 2, 3]);
    held.running.get(2)?.();
    await settle();
    expect([...held.running.keys()]).toEqual([1, 3, 4]);
    for (const end of [...held.running.values()]) end();
    await settle();
    expect([...held.running.keys()]).toEqual([5, 6, 7]);
    expect(held.most()).toBe(3);
    for (const end of [...held.running.values()]) end();
    await worker.stop();
  });

  it('gives the slot of an item that holds it past `slotHoldMs` to the next, up to `maxInFlight` in all', async () => {
    vi.useFakeTimers();
    const held = heldWork(10);
    const worker = leasedWorker(
      held.work,
      settings({
        concurrency: 2,
        slotHoldMs: 1_000,
        maxInFlight: 5,
        onStop: 'abort',
      }),
    );
    worker.start();
    await settle();
    expect(held.running.size).toBe(2);
    await settle(1_000);
    expect(held.running.size).toBe(4);
    await settle(1_000);
    // Five in flight at most, though the slots are free again.
    expect(held.running.size).toBe(5);
    expect(worker.freeSlots()).toBe(0);
    for (const end of [...held.running.values()]) end();
    await settle();
    expect(held.finished).toHaveLength(5);
    await worker.stop();
  });

  it("stops with 'finish': claims no more, and waits for the items in flight, giving none back", async () => {
    vi.useFakeTimers();
    const held = heldWork(10);
    const worker = leasedWorker(held.work, settings());
    worker.start();
    await settle();
    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    await settle();
    expect(stopped).toBe(false);
    for (const end of [...held.running.values()]) end();
    await stopping;
    expect(held.finished).toEqual([1, 2, 3]);
    expect(held.released).toEqual([]);
    expect(held.aborted).toEqual([]);
  });

  it("stops with 'abort': aborts the items in flight and gives them back", async () => {
    vi.useFakeTimers();
    const held = heldWork(10);
    const worker = leasedWorker(held.work, settings({ onStop: 'abort' }));
    worker.start();
    await settle();
    await worker.stop();
    expect(held.aborted).toEqual([1, 2, 3]);
    expect(held.released).toEqual([1, 2, 3]);
    expect(held.finished).toEqual([]);
  });

  it('drains: resolves once a claim finds nothing and nothing is in flight', async () => {
    const done: number[] = [];
    const worker = leasedWorker(
      {
        ...heldWork(8).work,
        async work(item: number) {
          await new Promise((resolve) => setTimeout(resolve, 1));
          done.push(item);
        },
      },
      settings(),
    );
    await worker.drain();
    expect(done.toSorted((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await worker.stop();
  });

  it.each([
    ['always', 2],
    ['whenBehind', 1],
  ] as const)(
    "claimAfterWork '%s': after a claim that left slots free, an item's end makes %i claims in all; a wake and the poll look again",
    async (claimAfterWork, claimsAfterEnd) => {
      vi.useFakeTimers();
      const held = heldWork(2);
      const worker = leasedWorker(held.work, settings({ claimAfterWork }));
      worker.start();
      await settle();
      // Two due, three slots: the claim was not full.
      expect([...held.running.keys()]).toEqual([1, 2]);
      expect(held.claims()).toBe(1);
      held.running.get(1)?.();
      await settle();
      expect(held.claims()).toBe(claimsAfterEnd);
      worker.wake();
      await settle();
      expect(held.claims()).toBe(claimsAfterEnd + 1);
      await settle(60_000);
      expect(held.claims()).toBe(claimsAfterEnd + 2);
      held.running.get(2)?.();
      await worker.stop();
    },
  );

  it("claimAfterWork 'whenBehind': while each claim fills the free slots, every end claims again, until one comes back short", async () => {
    vi.useFakeTimers();
    const held = heldWork(5);
    const worker = leasedWorker(
      held.work,
      settings({ claimAfterWork: 'whenBehind' }),
    );
    worker.start();
    await settle();
    expect([...held.running.keys()]).toEqual([1, 2, 3]);
    held.running.get(1)?.();
    await settle();
    // Behind: the end claimed the next (one slot, one item: full again).
    expect([...held.running.keys()]).toEqual([2, 3, 4]);
    held.running.get(2)?.();
    await settle();
    expect([...held.running.keys()]).toEqual([3, 4, 5]);
    held.running.get(3)?.();
    await settle();
    // Nothing left: that claim came back short, so no longer behind.
    expect(held.claims()).toBe(4);
    held.running.get(4)?.();
    await settle();
    expect(held.claims()).toBe(4);
    held.running.get(5)?.();
    await worker.stop();
  });

  it('looks again after `wakeIn`, sooner than the poll', async () => {
    vi.useFakeTimers();
    let due = 0;
    const claims: number[] = [];
    const worker = leasedWorker(
      {
        claim(limit) {
          claims.push(due);
          const items = Array.from(
            { length: Math.min(due, limit) },
            (_, i) => i,
          );
          due = 0;
          return Promise.resolve(items);
        },
        work: () => Promise.resolve(),
        release: () => Promise.resolve(),
      },
      settings(),
    );
    worker.start();
    await settle();
    expect(claims).toEqual([0]);
    due = 1;
    worker.wakeIn(2_000);
    await settle(1_999);
    expect(claims).toEqual([0]);
    await settle(1);
    // The claim that found the item (and, once it ended, one that found none).
    expect(claims.slice(0, 2)).toEqual([0, 1]);
    await worker.stop();
  });
});
