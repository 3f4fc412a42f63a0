/**
 * Two instances on one PostgreSQL server deliver each delivery once, and
 * in order within its stream (issue 60, "Delivery that is never lost,
 * doubled or reordered": "SIGKILL and two instances on PostgreSQL change
 * none of this"; Proof: "two instances delivering each delivery once").
 *
 * Two processes of the built service (`npm run serve`) on one database,
 * each with mail (an SMTP sink of the test's own: the outbox's worker
 * exists only with mail) and the monitor on, names pinned by
 * `MONITOR_RESOLVE` (`hook.test` → 127.0.0.1, never resolved) and loopback
 * allowed by `MONITOR_ALLOWED_NETWORKS`: nothing leaves loopback. Once
 * both run, 2,400 webhook deliveries of sites' "down" (1,200 streams of
 * 2) are queued with SQL; the receiver takes a second to answer each.
 * One instance starts at most 200 deliveries a second (20 slots, each
 * given up after 100 ms while its receiver waits), so it cannot have
 * taken them all before the other looks (every 5 s), and both are at
 * work at once. Each delivery reaches the
 * receiver exactly once (one request per delivery, one per webhook-id),
 * each stream's in the order queued, each only after the one before it
 * was answered; each instance logged the deliveries it handed over, and
 * together they handed over each once. PostgreSQL only: an embedded data
 * directory belongs to one process.
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from '../../../harness/page/scratchDatabase';
import { startSmtpSink, type SmtpSink } from '../../../harness/mail/smtpSink';
import type { DatabaseSettings } from '../../../server/db/database';
import { apiServer, signUpForLogin } from '../support/apiServer';
import {
  accountIdOf,
  queueDeliveries,
  startReceiver,
  webhookSecret,
  type Receiver,
} from '../support/outboxService';
import {
  databaseEnv,
  startService,
  type ServiceProcess,
} from '../support/serviceProcess';

const STREAMS = 1_200;
const PER_STREAM = 2;
const DELIVERIES = STREAMS * PER_STREAM;

let sink: SmtpSink;
let receiver: Receiver;
let settings: DatabaseSettings;
/** An instance without mail (it sends nothing): the test's view of the database. */
let queuer: FastifyInstance;
const running = new Set<ServiceProcess>();

beforeAll(async () => {
  sink = await startSmtpSink();
  receiver = await startReceiver(() => ({ status: 200, delayMs: 1_000 }));
  settings = await scratchDatabase();
  expect(settings.engine).toBe('postgres');
  queuer = await apiServer({ database: settings });
});

afterAll(async () => {
  for (const service of running) process.kill(service.pid, 'SIGKILL');
  await queuer.close();
  await receiver.close();
  await sink.stop();
});

/** The delivery ids each instance logged as handed over, of site.down. */
function handedOver(service: ServiceProcess): string[] {
  return service.output.flatMap((line) => {
    try {
      const entry = JSON.parse(line) as {
        msg?: string;
        delivery?: { id?: string; kind?: string };
      };
      return entry.msg === 'delivery handed over' &&
        entry.delivery?.kind === 'site.down'
        ? [String(entry.delivery.id)]
        : [];
    } catch {
      return [];
    }
  });
}

describe('two instances on one PostgreSQL server', () => {
  it('deliver each of 2,400 webhook deliveries exactly once, each stream in order', async () => {
    const secret = webhookSecret();
    const { body } = await signUpForLogin(queuer);
    const accountId = await accountIdOf(queuer, body.get('email') ?? '');
    const env = {
      ...databaseEnv(settings),
      MONITOR: 'on',
      MONITOR_RESOLVE: 'hook.test=127.0.0.1',
      MONITOR_ALLOWED_NETWORKS: '127.0.0.0/8',
      SMTP_URL: sink.url,
      MAIL_FROM: 'alerts@vigil.example',
    };
    // Both running and idle before anything is queued: each finds the
    // deliveries at its next look (every 5 s), so that both take part.
    const instances = await Promise.all([startService(env), startService(env)]);
    for (const instance of instances) running.add(instance);

    /** Path of delivery n of stream s. */
    const pathOf = (s: number, n: number) => `/s${s}/n${n}`;
    const ids: string[] = [];
    // Queued a round at a time: the streams' deliveries interleave.
    for (let n = 1; n <= PER_STREAM; n += 1) {
      ids.push(
        ...(await queueDeliveries(
          queuer,
          accountId,
          Array.from({ length: STREAMS }, (_, index) => ({
            kind: 'site.down',
            channel: 'webhook' as const,
            target: receiver.url(pathOf(index + 1, n)),
            secret,
            stream: `site:${index + 1}|channel:1`,
            payload: {
              siteUrl: `https://shop-${index + 1}.example`,
              startedAt: '2025-05-06T07:08:09.000Z',
              monitorId: String(index + 1),
              incidentId: String(n),
            },
          })),
        )),
      );
    }

    await expect
      .poll(
        async () => {
          const { rows } = await sql<{ sent: string | number }>`
            select count(*) as sent from deliveries
             where id = any(${ids.map(Number)}::bigint[])
               and state = 'sent'`.execute(queuer.database.db);
          return Number(rows[0]?.sent);
        },
        { timeout: 90_000, interval: 200 },
      )
      .toBe(DELIVERIES);
    // Stopped gracefully: any send still in flight would end and show.
    for (const instance of instances) process.kill(instance.pid, 'SIGTERM');
    for (const instance of instances) {
      expect((await instance.exited).code).toBe(0);
      running.delete(instance);
    }

    // Exactly once: one request per delivery, one per webhook-id.
    const requests = receiver.requests;
    expect(requests).toHaveLength(DELIVERIES);
    const targets = requests.map((request) => request.target).sort();
    const expected: string[] = [];
    for (let s = 1; s <= STREAMS; s += 1) {
      for (let n = 1; n <= PER_STREAM; n += 1) expected.push(pathOf(s, n));
    }
    expect(targets).toEqual(expected.sort());
    const webhookIds = requests.map((request) =>
      String(request.headers['webhook-id']),
    );
    expect(new Set(webhookIds).size).toBe(DELIVERIES);
    for (const request of requests) {
      expect(
        new Webhook(secret).verify(request.body, {
          'webhook-id': String(request.headers['webhook-id']),
          'webhook-timestamp': String(request.headers['webhook-timestamp']),
          'webhook-signature': String(request.headers['webhook-signature']),
        }),
      ).toMatchObject({ type: 'site.down' });
    }

    // In order within each stream, each after the one before was answered.
    for (let s = 1; s <= STREAMS; s += 1) {
      const stream = requests.filter((request) =>
        request.target.startsWith(`/s${s}/`),
      );
      expect(stream.map((request) => request.target)).toEqual(
        Array.from({ length: PER_STREAM }, (_, n) => pathOf(s, n + 1)),
      );
      for (let n = 1; n < PER_STREAM; n += 1) {
        expect(stream[n]?.at).toBeGreaterThanOrEqual(
          stream[n - 1]?.answeredAt ?? Infinity,
        );
      }
    }

    // Both worked, and together they handed each delivery over once.
    const [first = [], second = []] = instances.map(handedOver);
    expect(
      [first.length, second.length].map((count) => count > 0),
      'each instance handed some deliveries over',
    ).toEqual([true, true]);
    expect([...first, ...second].sort()).toEqual([...ids].sort());
  });
});
