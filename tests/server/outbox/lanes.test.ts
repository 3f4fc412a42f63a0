/**
 * Mails and POSTs are claimed in lanes of their own (ADR-0130): a mail waits
 * for our own SMTP pool, and mails claimed past what the pool sends would
 * queue inside it, ahead of an alert's mail claimed later, and take the
 * slots an alert's POST needs. With an SMTP server that accepts
 * connections and never answers, the mail lane holds at most its slots'
 * worth of mails `sending`, and a webhook queued after more mails than that
 * arrives while they all wait.
 *
 * On loopback only: the silent SMTP server and the receiver on 127.0.0.1
 * (`hook.test` mapped there by the test's resolver, the loopback
 * tripwire on every connection).
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANE_LOOPS } from '../../../server/outbox/deliverer';
import {
  startOutboxService,
  startReceiver,
  testNotice,
  webhookSecret,
  type OutboxService,
  type Receiver,
} from '../support/outboxService';

/** The mail lane's slots (server/outbox/deliverer.ts). */
const MAIL_SLOTS = LANE_LOOPS.mail.concurrency;
/** More mails than the lane takes at once. */
const MAILS = MAIL_SLOTS + 20;

let silent: Server;
const held = new Set<Socket>();
let outbox: OutboxService;
let receiver: Receiver;

beforeAll(async () => {
  // An SMTP server that never says hello.
  silent = createServer((socket) => {
    held.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  receiver = await startReceiver();
  outbox = await startOutboxService({
    mail: { transport: { kind: 'smtp', url: `smtp://127.0.0.1:${port}` } },
  });
});

afterAll(async () => {
  // The mails' sends end (a closed connection) before the worker stops.
  for (const socket of held) socket.destroy();
  silent.close();
  await outbox.close();
  await receiver.close();
});

describe('mails stuck in an SMTP server that never answers', () => {
  it('hold no more than the mail lane’s slots, and a webhook queued after them arrives meanwhile', async () => {
    await outbox.queue(
      Array.from({ length: MAILS }, (_, n) => ({
        channel: 'email' as const,
        target: `someone${n}@example.test`,
        stream: `mail:${n}`,
        payload: testNotice(`mail${n}`),
        deadlineIn: '1 hour',
      })),
    );
    const [webhook = ''] = await outbox.queue([
      {
        channel: 'webhook',
        target: receiver.url('/after-the-mails'),
        secret: webhookSecret(),
        stream: 'site:1|channel:1',
        payload: testNotice('webhook'),
        deadlineIn: '1 hour',
      },
    ]);
    await outbox.app.outbox.deliverer?.start();

    await expect
      .poll(() => receiver.requests.map((request) => request.target), {
        timeout: 10_000,
      })
      .toEqual(['/after-the-mails']);
    await expect
      .poll(async () => (await outbox.row(webhook)).state)
      .toBe('sent');
    const { rows } = await sql<{ state: string; count: string | number }>`
      select state, count(*) as count from deliveries
       where channel = 'email' and kind = 'test.ping'
       group by state order by state`.execute(outbox.app.database.db);
    expect(
      Object.fromEntries(rows.map((row) => [row.state, Number(row.count)])),
    ).toEqual({ pending: MAILS - MAIL_SLOTS, sending: MAIL_SLOTS });
  });
});
