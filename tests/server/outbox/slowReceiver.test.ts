/**
 * A receiver that answers after 20 s (issue 60, Proof: "a receiver that
 * answers after 20 s"; its SSRF section: "connect 5 s,
 * 10 s in all"; ADR-0130: a slow receiver holds a slot for 100 ms at
 * most, so it delays nobody else).
 *
 * - Within the POST's time box (the monitor's `postTimeouts`, shortened
 *   here to 300 ms so that no test waits 10 s), the delivery fails as a
 *   timeout, in our words, and is retried; the retry arrives once the
 *   receiver is quick again.
 * - With the product's own time box (10 s), deliveries to slow receivers
 *   fill every slot of the POST lane; a delivery queued after them to a
 *   quick receiver still arrives while the slow receiver holds every one
 *   of their requests unanswered.
 * - The slots the above relies on: no claim takes more deliveries than
 *   there are free slots, so that until a slot is given back (100 ms)
 *   no more requests are under way than there are slots.
 *
 * On loopback only (receivers on 127.0.0.1, `hook.test` mapped there by
 * the test's resolver, the loopback tripwire on every connection).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LANE_LOOPS } from '../../../server/outbox/deliverer';
import {
  dueNow,
  startOutboxService,
  startReceiver,
  testNotice,
  webhookSecret,
  type OutboxService,
  type Receiver,
} from '../support/outboxService';

const TWENTY_SECONDS = 20_000;

describe('a receiver that answers after 20 s, with a POST time box of 300 ms', () => {
  let outbox: OutboxService;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver(() => ({
      status: 200,
      delayMs: TWENTY_SECONDS,
    }));
    outbox = await startOutboxService({
      monitor: { postTimeouts: { totalMs: 300 } },
    });
  });

  afterAll(async () => {
    await receiver.close();
    await outbox.close();
  });

  afterEach(() => {
    expect(outbox.tripwire.violations).toEqual([]);
  });

  it('fails the delivery as a timeout, in our words, and retries it', async () => {
    const [id = ''] = await outbox.queue([
      {
        channel: 'webhook',
        target: receiver.url('/late'),
        secret: webhookSecret(),
        stream: 'slow:late',
        payload: testNotice('late'),
      },
    ]);
    const started = performance.now();
    await outbox.drain();
    // The time box ended it, not the receiver's answer.
    expect(performance.now() - started).toBeLessThan(TWENTY_SECONDS / 2);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.answeredAt).toBeUndefined();
    const row = await outbox.row(id);
    expect(row.state).toBe('pending');
    expect(row.attempts).toBe(1);
    expect(row.last_status).toBeNull();
    expect(row.last_error).toMatch(/no answer in time/);

    // The receiver is quick again: the retry arrives, with the same id.
    receiver.answer(() => ({ status: 200 }));
    await dueNow(outbox.app, [id]);
    await outbox.drain();
    expect(await outbox.row(id)).toMatchObject({ state: 'sent', attempts: 2 });
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]?.headers['webhook-id']).toBe(
      receiver.requests[0]?.headers['webhook-id'],
    );
  });
});

/** The POST lane's slots (server/outbox/deliverer.ts, ADR-0130). */
const SLOTS = LANE_LOOPS.http.concurrency;
/** How long a POST waiting for its receiver keeps its slot (ms). */
const HOLD_MS = LANE_LOOPS.http.slotHoldMs ?? Infinity;

describe('slow receivers filling every slot, with the product’s time box', () => {
  /** More deliveries than the worker has slots. */
  const SLOW = SLOTS + 10;
  let outbox: OutboxService;
  let slow: Receiver;
  let quick: Receiver;
  /** How many slow requests were held unanswered when the quick one came. */
  let heldWhenQuickCame: number | undefined;

  beforeAll(async () => {
    slow = await startReceiver(() => ({
      status: 200,
      delayMs: TWENTY_SECONDS,
    }));
    quick = await startReceiver(() => {
      heldWhenQuickCame = slow.held().length;
      return { status: 200 };
    });
    outbox = await startOutboxService({
      names: { 'slow.test': ['127.0.0.1'], 'quick.test': ['127.0.0.1'] },
    });
  });

  afterAll(async () => {
    // Their connections end: the slow posts end, and the worker can stop.
    await slow.close();
    await quick.close();
    await outbox.close();
  });

  afterEach(() => {
    expect(outbox.tripwire.violations).toEqual([]);
  });

  it('delay no delivery queued after them: it arrives while the slow receiver still holds every request', async () => {
    const secret = webhookSecret();
    await outbox.queue(
      Array.from({ length: SLOW }, (_, n) => ({
        channel: 'webhook' as const,
        target: slow.url('/slow', 'slow.test'),
        secret,
        stream: `slow:${n}`,
        payload: testNotice(`slow-${n}`),
      })),
    );
    await outbox.app.outbox.deliverer?.start();
    // Every slot holds a slow request.
    await expect
      .poll(() => slow.held().length, { timeout: 15_000 })
      .toBeGreaterThanOrEqual(SLOTS);
    const slotsFull = Date.now();

    const [id = ''] = await outbox.queue([
      {
        channel: 'webhook',
        target: quick.url('/quick', 'quick.test'),
        secret,
        stream: 'quick:1',
        payload: testNotice('quick'),
      },
    ]);
    outbox.app.outbox.wake();
    await expect.poll(() => quick.requests.length, { timeout: 9_000 }).toBe(1);
    const arrived = quick.requests[0]?.at ?? Number.NaN;
    // No slow request had been answered, nor had its POST given up (10 s):
    // the quick one did not wait for any of them.
    expect(heldWhenQuickCame).toBeGreaterThanOrEqual(SLOTS);
    expect(
      slow.requests.every((request) => request.answeredAt === undefined),
    ).toBe(true);
    // A slow delivery holds its slot 100 ms at most (and a claim takes a
    // moment): well before the POSTs' 10 s.
    expect(arrived - slotsFull).toBeLessThan(5_000);
    await expect.poll(async () => (await outbox.row(id)).state).toBe('sent');
  });
});

describe('the worker’s slots', () => {
  let outbox: OutboxService;
  let slow: Receiver;

  beforeAll(async () => {
    slow = await startReceiver(() => ({
      status: 200,
      delayMs: TWENTY_SECONDS,
    }));
    outbox = await startOutboxService();
  });

  afterAll(async () => {
    await slow.close();
    await outbox.close();
  });

  afterEach(() => {
    expect(outbox.tripwire.violations).toEqual([]);
  });

  it('take no more deliveries at once than there are slots: a claim is held to the free slots', async () => {
    await outbox.queue(
      Array.from({ length: 3 * SLOTS }, (_, n) => ({
        channel: 'webhook' as const,
        target: slow.url('/slots'),
        secret: webhookSecret(),
        stream: `slots:${n}`,
        payload: testNotice(`slots-${n}`),
      })),
    );
    await outbox.app.outbox.deliverer?.start();
    await expect
      .poll(() => slow.held().length, { timeout: 15_000 })
      .toBeGreaterThanOrEqual(SLOTS);
    const [first] = outbox.renders;
    // Each claim is worded at once: the renderer hears each claim's size.
    expect(
      Math.max(...outbox.renders.map((render) => render.size)),
      'deliveries taken by one claim',
    ).toBeLessThanOrEqual(SLOTS);
    // Before any slot was given back (100 ms after the first claim's
    // sends started, which was after it was worded), no more requests
    // were under way than there are slots.
    expect(
      slow.requests.filter(
        (request) => request.at < (first?.at ?? 0) + HOLD_MS - 10,
      ).length,
      'requests under way before a slot was given back',
    ).toBeLessThanOrEqual(SLOTS);
  });
});
