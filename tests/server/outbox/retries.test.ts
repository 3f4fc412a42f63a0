/**
 * How a delivery that fails is retried, and when it dies (issue 60,
 * "Delivery that is never lost, doubled or reordered"):
 *
 * - "retried with exponential backoff and jitter (from 1 s, at most 5
 *   minutes apart)": after the n-th failure the next attempt is
 *   2^(n-1) s later ±20 %, and never more than 5 minutes later;
 * - "`Retry-After` on a 429 or 503 is honoured" (and only there);
 * - "until a deadline of 1 hour … past the deadline the delivery is
 *   dead": dead when its next attempt would fall after its deadline, with
 *   when and the last error in our words (no remote text), and what the
 *   features do about a death (`onDead`) run as it is marked;
 * - "a 410 disables the channel": dead at once, `gone` told to `onDead`;
 * - "a retry keeps its `webhook-id`, so a receiver can drop a repeat",
 *   and a mail's Message-ID is the same on every attempt.
 *
 * On loopback only (receivers and an SMTP server on 127.0.0.1, names
 * mapped there by the test's resolver, every connection through the
 * loopback tripwire). The worker runs on the database's `now()`: the test
 * never waits for a retry, it moves the next attempt into the past with
 * SQL and drains. A backoff is read as the next attempt's time less the
 * database's clock just before and just after the drain that failed: the
 * delay chosen lies between the two.
 */
import type { Socket } from 'node:net';
import { sql } from 'kysely';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeadDelivery } from '../../../server/outbox/index';
import {
  databaseNow,
  dueNow,
  startOutboxService,
  startReceiver,
  testNotice,
  TEST_KIND,
  webhookSecret,
  type OutboxService,
  type Receiver,
} from '../support/outboxService';

const SECOND = 1_000;
const FIVE_MINUTES = 5 * 60 * SECOND;

let outbox: OutboxService;
let receiver: Receiver;
let streams = 0;
/** What the test's `onDead` heard, with the row as its transaction saw it. */
const deaths: { dead: DeadDelivery; stateInTransaction: string | undefined }[] =
  [];

beforeAll(async () => {
  receiver = await startReceiver();
  outbox = await startOutboxService();
  // Registered after the service is ready: the handlers are read when a
  // death is marked.
  outbox.app.outbox.onDead(async (trx, dead) => {
    for (const one of dead) {
      const { rows } = await sql<{ state: string }>`
        select state from deliveries where id = ${one.id}::bigint`.execute(trx);
      deaths.push({ dead: one, stateInTransaction: rows[0]?.state });
    }
  });
});

afterAll(async () => {
  await outbox.close();
  await receiver.close();
});

afterEach(() => {
  expect(outbox.tripwire.violations).toEqual([]);
});

/** Queues webhook deliveries to `path`, each in a stream of its own. */
function queueWebhooks(
  path: string,
  count: number,
  options: { deadlineIn?: string; channelId?: string; secret?: string } = {},
): Promise<string[]> {
  return outbox.queue(
    Array.from({ length: count }, () => {
      streams += 1;
      return {
        channel: 'webhook' as const,
        target: receiver.url(path),
        secret: options.secret ?? webhookSecret(),
        stream: `retries:${streams}`,
        payload: testNotice(`${path}#${streams}`),
        ...(options.deadlineIn && { deadlineIn: options.deadlineIn }),
        ...(options.channelId && { channelId: options.channelId }),
      };
    }),
  );
}

/** Drains, with the database's clock just before and after. */
async function drainTimed(): Promise<{ before: number; after: number }> {
  const before = await databaseNow(outbox.app);
  await outbox.drain();
  const after = await databaseNow(outbox.app);
  return { before, after };
}

/** Requests that reached a path. */
const requestsTo = (path: string) =>
  receiver.requests.filter((request) => request.target === path);

describe('the backoff', () => {
  it('is 2^(n-1) s ±20 % after the n-th failure, from 1 s, with jitter, and never more than 5 minutes', async () => {
    receiver.answer((request) =>
      request.target === '/backoff' ? { status: 500 } : { status: 200 },
    );
    const ids = await queueWebhooks('/backoff', 10);
    const violations: string[] = [];
    for (let n = 1; n <= 12; n += 1) {
      const { before, after } = await drainTimed();
      const rows = await Promise.all(ids.map((id) => outbox.row(id)));
      for (const row of rows) {
        expect(row.state).toBe('pending');
        expect(row.attempts).toBe(n);
      }
      const exact = 2 ** (n - 1) * SECOND;
      const least = 0.8 * Math.min(exact, FIVE_MINUTES);
      const most = Math.min(1.2 * exact, FIVE_MINUTES);
      for (const row of rows) {
        const next = row.next_attempt_at.getTime();
        // The delay chosen is within [next - after, next - before].
        if (next - before < least || next - after > most) {
          violations.push(
            `after failure ${n}: next attempt ${((next - before) / SECOND).toFixed(1)} s later, not within ${least / SECOND}–${most / SECOND} s`,
          );
        }
      }
      if (n >= 4 && n <= 8) {
        // Jitter: ten deliveries that failed together are not all due
        // together.
        const nexts = rows.map((row) => row.next_attempt_at.getTime());
        expect(Math.max(...nexts) - Math.min(...nexts)).toBeGreaterThan(
          after - before,
        );
      }
      await dueNow(outbox.app, ids);
    }
    expect(requestsTo('/backoff')).toHaveLength(10 * 12);
    expect(violations).toEqual([]);
  });
});

describe('Retry-After', () => {
  it.each([
    { status: 429, retryAfter: '120' },
    { status: 503, retryAfter: '120' },
  ])(
    'on a $status with Retry-After: $retryAfter, the next attempt is 120 s later at least',
    async ({ status, retryAfter }) => {
      const path = `/retry-after-${status}`;
      receiver.answer((request) =>
        request.target === path
          ? { status, headers: { 'retry-after': retryAfter } }
          : { status: 200 },
      );
      const [id = ''] = await queueWebhooks(path, 1);
      await outbox.drain();
      const row = await outbox.row(id);
      const [request] = requestsTo(path);
      const answeredAt = request?.answeredAt ?? Number.NaN;
      expect(row.state).toBe('pending');
      expect(row.last_status).toBe(status);
      // Clocks read in ms and µs: a few ms of rounding at most.
      expect(row.next_attempt_at.getTime()).toBeGreaterThanOrEqual(
        answeredAt + 120 * SECOND - 10,
      );
      // Not far beyond (the backoff of a first failure is ~1 s).
      expect(row.next_attempt_at.getTime()).toBeLessThan(
        answeredAt + 125 * SECOND,
      );
    },
  );

  it('as an HTTP date on a 503, the next attempt is not before that date', async () => {
    const path = '/retry-after-date';
    let until = 0;
    receiver.answer((request) => {
      if (request.target !== path) return { status: 200 };
      // HTTP dates are whole seconds: the next whole second 120 s ahead.
      until = Math.ceil((Date.now() + 120 * SECOND) / SECOND) * SECOND;
      return {
        status: 503,
        headers: { 'retry-after': new Date(until).toUTCString() },
      };
    });
    const [id = ''] = await queueWebhooks(path, 1);
    await outbox.drain();
    const row = await outbox.row(id);
    expect(row.state).toBe('pending');
    expect(row.next_attempt_at.getTime()).toBeGreaterThanOrEqual(until - 10);
    expect(row.next_attempt_at.getTime()).toBeLessThan(until + 5 * SECOND);
  });

  it('on a 500, is ignored: the next attempt follows the backoff (~1 s)', async () => {
    const path = '/retry-after-500';
    receiver.answer((request) =>
      request.target === path
        ? { status: 500, headers: { 'retry-after': '120' } }
        : { status: 200 },
    );
    const [id = ''] = await queueWebhooks(path, 1);
    const { before, after } = await drainTimed();
    const row = await outbox.row(id);
    expect(row.state).toBe('pending');
    const next = row.next_attempt_at.getTime();
    expect(next - before).toBeGreaterThanOrEqual(0.8 * SECOND);
    expect(next - after).toBeLessThanOrEqual(1.2 * SECOND);
  });
});

describe('the deadline', () => {
  it('kills a failing delivery whose next attempt would come after it: dead_at, the error in our words, and onDead run as it is marked', async () => {
    const path = '/deadline-near';
    const remote =
      'ERROR at db.internal:5432 password=hunter2 <script>alert(1)</script>';
    receiver.answer((request) =>
      request.target === path ? { status: 500, body: remote } : { status: 200 },
    );
    const [id = ''] = await queueWebhooks(path, 1, {
      deadlineIn: '500 milliseconds',
      channelId: '987654321',
    });
    const heard = deaths.length;
    await outbox.drain();
    const row = await outbox.row(id);
    expect(row.state).toBe('dead');
    expect(row.attempts).toBe(1);
    expect(row.dead_at).toBeInstanceOf(Date);
    expect(row.sent_at).toBeNull();
    expect(row.last_status).toBe(500);
    // Our words: what happened, nothing of what the receiver wrote.
    expect(row.last_error).toMatch(/500/);
    for (const part of ['db.internal', 'hunter2', 'script', 'ERROR']) {
      expect(row.last_error).not.toContain(part);
    }
    expect(deaths.slice(heard)).toEqual([
      {
        dead: {
          id,
          kind: TEST_KIND,
          accountId: outbox.accountId,
          channelId: '987654321',
          error: row.last_error,
          gone: false,
        },
        // In the marking transaction: the row is dead there already.
        stateInTransaction: 'dead',
      },
    ]);
    // Dead is final: nothing more is sent.
    await dueNow(outbox.app, [id]);
    await outbox.drain();
    expect(requestsTo(path)).toHaveLength(1);
  });

  it('retries a failing delivery until the deadline, then it is dead', async () => {
    const path = '/deadline-later';
    receiver.answer((request) =>
      request.target === path ? { status: 502 } : { status: 200 },
    );
    const [id = ''] = await queueWebhooks(path, 1);
    const heard = deaths.length;
    await outbox.drain();
    expect(await outbox.row(id)).toMatchObject({
      state: 'pending',
      attempts: 1,
      dead_at: null,
    });
    expect(deaths).toHaveLength(heard);
    // The deadline is now a second away: the second failure's backoff
    // (2 s ±20 %) would end after it.
    await sql`update deliveries set deadline_at = now() + interval '1 second'
               where id = ${id}::bigint`.execute(outbox.app.database.db);
    await dueNow(outbox.app, [id]);
    await outbox.drain();
    const row = await outbox.row(id);
    expect(row).toMatchObject({ state: 'dead', attempts: 2 });
    expect(row.dead_at).toBeInstanceOf(Date);
    expect(deaths.slice(heard).map(({ dead }) => dead)).toEqual([
      expect.objectContaining({ id, gone: false, error: row.last_error }),
    ]);
  });

  it('kills a delivery whose Retry-After reaches past its deadline', async () => {
    const path = '/deadline-retry-after';
    receiver.answer((request) =>
      request.target === path
        ? { status: 429, headers: { 'retry-after': '7200' } }
        : { status: 200 },
    );
    const [id = ''] = await queueWebhooks(path, 1);
    await outbox.drain();
    expect(await outbox.row(id)).toMatchObject({
      state: 'dead',
      attempts: 1,
      last_status: 429,
    });
  });
});

describe('a 410 Gone', () => {
  it('kills the delivery at once, and tells onDead it is gone', async () => {
    const path = '/gone';
    receiver.answer((request) =>
      request.target === path
        ? { status: 410, body: 'this hook was deleted' }
        : { status: 200 },
    );
    const [id = ''] = await queueWebhooks(path, 1, { channelId: '123456789' });
    const heard = deaths.length;
    await outbox.drain();
    const row = await outbox.row(id);
    expect(row).toMatchObject({ state: 'dead', attempts: 1, last_status: 410 });
    expect(row.dead_at).toBeInstanceOf(Date);
    // A day before its deadline: the 410 alone killed it.
    expect(row.deadline_at.getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);
    expect(row.last_error).not.toContain('deleted');
    expect(deaths.slice(heard)).toEqual([
      {
        dead: {
          id,
          kind: TEST_KIND,
          accountId: outbox.accountId,
          channelId: '123456789',
          error: row.last_error,
          gone: true,
        },
        stateInTransaction: 'dead',
      },
    ]);
    await dueNow(outbox.app, [id]);
    await outbox.drain();
    expect(requestsTo(path)).toHaveLength(1);
  });
});

describe('a retried webhook', () => {
  it('keeps its webhook-id, and each attempt verifies', async () => {
    const path = '/same-id';
    let attempts = 0;
    receiver.answer((request) => {
      if (request.target !== path) return { status: 200 };
      attempts += 1;
      return attempts === 1 ? { status: 500 } : { status: 204 };
    });
    const secret = webhookSecret();
    const [id = ''] = await queueWebhooks(path, 1, { secret });
    await outbox.drain();
    await dueNow(outbox.app, [id]);
    await outbox.drain();
    expect(await outbox.row(id)).toMatchObject({
      state: 'sent',
      attempts: 2,
      last_status: 204,
    });
    const [first, second] = requestsTo(path);
    expect(requestsTo(path)).toHaveLength(2);
    expect(first?.headers['webhook-id']).toBeTruthy();
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(second?.body).toBe(first?.body);
    for (const request of [first, second]) {
      expect(
        new Webhook(secret).verify(request?.body ?? '', {
          'webhook-id': String(request?.headers['webhook-id']),
          'webhook-timestamp': String(request?.headers['webhook-timestamp']),
          'webhook-signature': String(request?.headers['webhook-signature']),
        }),
      ).toEqual(JSON.parse(first?.body ?? 'null'));
    }
    // Two deliveries never share an id.
    const [otherId = ''] = await queueWebhooks(path, 1, { secret });
    await outbox.drain();
    expect(await outbox.row(otherId)).toMatchObject({ state: 'sent' });
    expect(requestsTo(path)[2]?.headers['webhook-id']).not.toBe(
      first?.headers['webhook-id'],
    );
  });
});

/**
 * An SMTP server on 127.0.0.1 that takes each message's data and answers
 * 451 ("try again later") to the first transmission of each Message-ID.
 */
async function startRefusingOnceSmtp() {
  const seen: { messageId: string; subject: string; refused: boolean }[] = [];
  const sockets = new Set<Socket>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const messageId = mail.messageId ?? '';
          const refused = !seen.some((one) => one.messageId === messageId);
          seen.push({ messageId, subject: mail.subject ?? '', refused });
          callback(
            refused
              ? Object.assign(new Error('Try again later'), {
                  responseCode: 451,
                })
              : null,
          );
        },
        (error: unknown) => callback(error as Error),
      );
    },
  });
  server.on('error', () => undefined);
  server.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('the SMTP server is on a TCP port');
  }
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    seen,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

describe('a retried mail', () => {
  let smtp: Awaited<ReturnType<typeof startRefusingOnceSmtp>>;
  let mailOutbox: OutboxService;

  beforeAll(async () => {
    smtp = await startRefusingOnceSmtp();
    mailOutbox = await startOutboxService({
      mail: { transport: { kind: 'smtp', url: smtp.url } },
    });
  });

  afterAll(async () => {
    await mailOutbox.close();
    await smtp.stop();
  });

  it('has the same Message-ID on every attempt', async () => {
    const [id = ''] = await mailOutbox.queue([
      {
        channel: 'email',
        target: 'ops@example.com',
        stream: 'mail:retry',
        payload: testNotice('mail-retry'),
      },
    ]);
    await mailOutbox.drain();
    expect(await mailOutbox.row(id)).toMatchObject({
      state: 'pending',
      attempts: 1,
    });
    await dueNow(mailOutbox.app, [id]);
    await mailOutbox.drain();
    expect(await mailOutbox.row(id)).toMatchObject({
      state: 'sent',
      attempts: 2,
      subject: 'Test mail-retry',
    });
    const attempts = smtp.seen.filter(
      (mail) => mail.subject === 'Test mail-retry',
    );
    expect(attempts.map((mail) => mail.refused)).toEqual([true, false]);
    expect(attempts[0]?.messageId).toMatch(/^<[^<>@\s]+@[^<>@\s]+>$/);
    expect(attempts[1]?.messageId).toBe(attempts[0]?.messageId);
  });
});
