/**
 * Deliveries of one stream go in order (issue 60, "Delivery that is never
 * lost, doubled or reordered": "deliveries of one site to one channel go
 * in order: a 'back up' is never delivered before its 'down'"; ADR-0129: a
 * delivery is due only when no earlier one of its stream is still pending
 * or being sent), and one stream waiting holds no other up.
 *
 * On loopback: a receiver on 127.0.0.1 (`hook.test`, mapped there by the
 * test's resolver, every connection through the loopback tripwire), which
 * answers 500 to the first delivery's first attempt. Time is the
 * database's: the test moves a retry's next attempt into the past with SQL
 * instead of waiting for it, then drains the worker.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
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

let outbox: OutboxService;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  outbox = await startOutboxService();
});

afterAll(async () => {
  await outbox.close();
  await receiver.close();
});

afterEach(() => {
  expect(outbox.tripwire.violations).toEqual([]);
});

/** The labels of the webhook bodies the receiver got, in arrival order. */
function arrivals(): string[] {
  return receiver.requests.map(
    (request) => (JSON.parse(request.body) as { label: string }).label,
  );
}

describe('two deliveries of one stream, the first failing', () => {
  it('hold the second until the first has arrived; then the second follows; another stream is not held up', async () => {
    const secret = webhookSecret();
    // "down" fails once (500), then arrives.
    let downAttempts = 0;
    receiver.answer((request) => {
      const { label } = JSON.parse(request.body) as { label: string };
      if (label === 'down') {
        downAttempts += 1;
        if (downAttempts === 1) return { status: 500, body: 'oops' };
      }
      return { status: 200 };
    });
    const [down = '', up = '', other = ''] = await outbox.queue([
      {
        channel: 'webhook',
        target: receiver.url('/a'),
        secret,
        stream: 'site:1|channel:1',
        payload: testNotice('down'),
      },
      {
        channel: 'webhook',
        target: receiver.url('/a'),
        secret,
        stream: 'site:1|channel:1',
        payload: testNotice('up'),
      },
      // Another stream (another site to the same receiver), queued last.
      {
        channel: 'webhook',
        target: receiver.url('/b'),
        secret,
        stream: 'site:2|channel:1',
        payload: testNotice('other'),
      },
    ]);

    await outbox.drain();
    // The "down" failed and waits for its retry; the "up" waits behind it;
    // the other stream's delivery went.
    expect(arrivals()).toEqual(['down', 'other']);
    expect(await outbox.row(down)).toMatchObject({
      state: 'pending',
      attempts: 1,
      last_status: 500,
    });
    expect(await outbox.row(up)).toMatchObject({
      state: 'pending',
      attempts: 0,
      sent_at: null,
    });
    expect((await outbox.row(other)).state).toBe('sent');

    // Drained again before the retry is due: still nothing of the stream.
    await outbox.drain();
    expect(arrivals()).toEqual(['down', 'other']);
    expect((await outbox.row(up)).attempts).toBe(0);

    // The retry is due: the "down" arrives, and then the "up".
    await dueNow(outbox.app, [down]);
    await outbox.drain();
    expect(arrivals()).toEqual(['down', 'other', 'down', 'up']);
    const [, , retried, following] = receiver.requests;
    // The "up" was sent only once the "down" had its answer.
    expect(following?.at).toBeGreaterThanOrEqual(retried?.answeredAt ?? 0);
    expect(await outbox.row(down)).toMatchObject({
      state: 'sent',
      attempts: 2,
    });
    expect(await outbox.row(up)).toMatchObject({ state: 'sent', attempts: 1 });
  });

  it('keep many streams in order while their first deliveries fail in turn', async () => {
    receiver.requests.length = 0;
    const secret = webhookSecret();
    // Every stream's first delivery fails once.
    const failedOnce = new Set<string>();
    receiver.answer((request) => {
      const { label } = JSON.parse(request.body) as { label: string };
      if (label.endsWith('#1') && !failedOnce.has(label)) {
        failedOnce.add(label);
        return { status: 503 };
      }
      return { status: 200 };
    });
    const STREAMS = 5;
    const PER_STREAM = 4;
    const queued: string[] = [];
    // Interleaved, as events of several sites come in.
    for (let n = 1; n <= PER_STREAM; n += 1) {
      for (let s = 1; s <= STREAMS; s += 1) {
        queued.push(
          ...(await outbox.queue([
            {
              channel: 'webhook',
              target: receiver.url(`/s${s}`),
              secret,
              stream: `site:${s}|many`,
              payload: testNotice(`s${s}#${n}`),
            },
          ])),
        );
      }
    }
    for (let round = 0; round < PER_STREAM + 2; round += 1) {
      await outbox.drain();
      await dueNow(outbox.app, queued);
    }
    for (let s = 1; s <= STREAMS; s += 1) {
      const seen = arrivals().filter((label) => label.startsWith(`s${s}#`));
      // The first twice (failed, then arrived), then the rest in order.
      expect(seen).toEqual([
        `s${s}#1`,
        `s${s}#1`,
        `s${s}#2`,
        `s${s}#3`,
        `s${s}#4`,
      ]);
    }
  });
});

describe('the earliest deadline first (ADR-0130)', () => {
  it('sends an alert queued after many link mails before them', async () => {
    receiver.requests.length = 0;
    receiver.answer(() => ({ status: 200 }));
    const secret = webhookSecret();
    // Link mails' deadline is three days; an alert's an hour. More of
    // them than one claim takes (the POST lane's slots).
    const early = LANE_LOOPS.http.concurrency + 10;
    await outbox.queue(
      Array.from({ length: early }, (_, n) => ({
        channel: 'webhook' as const,
        target: receiver.url(`/mail${n}`),
        secret,
        stream: `link:${n}`,
        payload: testNotice(`mail${n}`),
        deadlineIn: '72 hours',
      })),
    );
    const [alert = ''] = await outbox.queue([
      {
        channel: 'webhook',
        target: receiver.url('/alert'),
        secret,
        stream: 'site:9|channel:1',
        payload: testNotice('alert'),
        deadlineIn: '1 hour',
      },
    ]);
    const renderedBefore = outbox.rendered.length;
    const claimsBefore = outbox.renders.length;
    await outbox.drain();
    expect(arrivals()).toHaveLength(early + 1);
    // The first claim (as many as the lane's slots) took the alert.
    const firstClaim = outbox.rendered.slice(
      renderedBefore,
      renderedBefore + (outbox.renders[claimsBefore]?.size ?? 0),
    );
    expect(firstClaim.length).toBeLessThan(early + 1);
    expect(firstClaim.map((delivery) => delivery.id)).toContain(alert);
  });
});

describe('a claim behind many deliveries held by their streams', () => {
  it('still finds a due delivery further on, within a few claims', async () => {
    receiver.requests.length = 0;
    const secret = webhookSecret();
    receiver.answer(() => ({ status: 200 }));
    // One stream whose first delivery waits for a retry an hour away,
    // with 300 more behind it (more than a first window), all due sooner than the one other
    // delivery (three days).
    const [head = ''] = await outbox.queue([
      {
        channel: 'webhook',
        target: receiver.url('/held'),
        secret,
        stream: 'site:7|held',
        payload: testNotice('head'),
      },
    ]);
    await sql`update deliveries set next_attempt_at = now() + interval '1 hour',
                                    attempts = 1
               where id = ${head}`.execute(outbox.app.database.db);
    await outbox.queue(
      Array.from({ length: 300 }, (_, n) => ({
        channel: 'webhook' as const,
        target: receiver.url('/held'),
        secret,
        stream: 'site:7|held',
        payload: testNotice(`held${n}`),
      })),
    );
    const [free = ''] = await outbox.queue([
      {
        channel: 'webhook',
        target: receiver.url('/free'),
        secret,
        stream: 'site:8|free',
        payload: testNotice('free'),
        deadlineIn: '72 hours',
      },
    ]);
    await outbox.drain();
    expect(arrivals()).toEqual(['free']);
    expect((await outbox.row(free)).state).toBe('sent');
    await sql`delete from deliveries where stream = 'site:7|held'`.execute(
      outbox.app.database.db,
    );
  });
});

describe('the worker running on its own', () => {
  it('sends a stream’s next delivery once the one before it is sent, without waiting for its poll', async () => {
    // The worker polls every 60 s (the support's setting): what arrives
    // sooner came by a wake.
    const secret = webhookSecret();
    const [down = '', up = ''] = await outbox.queue(
      ['down', 'up'].map((label) => ({
        channel: 'webhook' as const,
        target: receiver.url('/next'),
        secret,
        stream: 'site:9|channel:1',
        payload: testNotice(label),
      })),
    );
    const next = () =>
      receiver.requests.filter((request) => request.target === '/next');
    const worker = outbox.app.outbox.deliverer;
    await worker?.start();
    try {
      await expect.poll(() => next().length, { timeout: 10_000 }).toBe(2);
      expect(
        next().map(
          (request) => (JSON.parse(request.body) as { label: string }).label,
        ),
      ).toEqual(['down', 'up']);
      const [first, second] = next();
      expect(second?.at).toBeGreaterThanOrEqual(first?.answeredAt ?? 0);
      await expect.poll(async () => (await outbox.row(up)).state).toBe('sent');
      expect((await outbox.row(down)).state).toBe('sent');
    } finally {
      await worker?.stop();
    }
  });
});
