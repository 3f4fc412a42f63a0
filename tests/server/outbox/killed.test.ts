/**
 * A SIGKILL between queue and send loses, doubles under another id, or
 * reorders no delivery (issue 60, "Delivery that is never lost, doubled
 * or reordered": "SIGKILL and two instances on PostgreSQL change none of
 * this"; "a retry keeps its `webhook-id`, so a receiver can drop a
 * repeat"; Proof: "SIGKILL between queue and send").
 *
 * The built service as a process (`npm run serve`), on the run's engine,
 * with mail (an SMTP sink of the test's own: the outbox's worker exists
 * only with mail) and the monitor on, its names pinned by
 * `MONITOR_RESOLVE` (`hook.test` → 127.0.0.1, never resolved) and
 * loopback allowed by `MONITOR_ALLOWED_NETWORKS`: nothing leaves loopback.
 * Four webhook deliveries of a site's "down" are queued with SQL while no
 * process runs (two in one stream); the service starts and sends the
 * first of each stream to a receiver that holds every request unanswered;
 * it is killed with SIGKILL while they are held, then started again, and
 * the receiver now answers. Every delivery arrives, the held ones again
 * with the webhook-id of their first attempt, and the stream's second
 * after its first.
 *
 * On PostgreSQL a killed instance's claims end with their lease (over six
 * minutes): the lease is the clock the test holds, so it ends it with SQL,
 * as tests/server/monitor/killed.test.ts does. On the embedded engine one
 * process holds the data directory, so the restart takes the claims back
 * by itself.
 */
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServiceDatabase } from '../../../server/schema';
import { scratchDatabase } from '../../../harness/page/scratchDatabase';
import { startSmtpSink, type SmtpSink } from '../../../harness/mail/smtpSink';
import { apiServer, signUpForLogin } from '../support/apiServer';
import {
  accountIdOf,
  queueDeliveries,
  startReceiver,
  webhookSecret,
  type Receiver,
  type SeenRequest,
} from '../support/outboxService';
import {
  databaseEnv,
  startService,
  type ServiceProcess,
} from '../support/serviceProcess';

let sink: SmtpSink;
let receiver: Receiver;
const running = new Set<ServiceProcess>();

beforeAll(async () => {
  sink = await startSmtpSink();
  // Holds every request until the test says otherwise.
  receiver = await startReceiver(() => 'hold');
});

afterAll(async () => {
  for (const service of running) process.kill(service.pid, 'SIGKILL');
  await receiver.close();
  await sink.stop();
});

/** A site's "down", as the monitor queues it (server/monitor/alertNotices.ts). */
function siteDown(n: number) {
  return {
    siteUrl: `https://shop-${n}.example`,
    startedAt: '2025-05-06T07:08:09.000Z',
    occurredAt: '2025-05-06T07:09:09.000Z',
    monitorId: String(n),
    incidentId: String(100 + n),
    reason: { code: 'timeout' },
  };
}

/** The requests that reached a path. */
const to = (path: string): SeenRequest[] =>
  receiver.requests.filter((request) => request.target === path);

describe('a SIGKILL between queue and send', () => {
  it('loses no delivery: each arrives after the restart, with the webhook-id of its first attempt, in order', async () => {
    const settings = await scratchDatabase();
    const secret = webhookSecret();
    const paths = ['/a1', '/a2', '/b1', '/c1'];

    // Queued while no process runs (the embedded directory is one
    // process's): an instance without mail sends nothing.
    const queuer = await apiServer({ database: settings });
    let ids: string[];
    try {
      const { body } = await signUpForLogin(queuer);
      const accountId = await accountIdOf(queuer, body.get('email') ?? '');
      ids = await queueDeliveries(
        queuer,
        accountId,
        paths.map((path, index) => ({
          kind: 'site.down',
          channel: 'webhook' as const,
          target: receiver.url(path),
          secret,
          // a1 and a2: one site to one channel.
          stream: `site:${path[1]}|channel:1`,
          payload: siteDown(index + 1),
        })),
      );
    } finally {
      await queuer.close();
    }

    const env = {
      ...databaseEnv(settings),
      MONITOR: 'on',
      MONITOR_RESOLVE: 'hook.test=127.0.0.1',
      MONITOR_ALLOWED_NETWORKS: '127.0.0.0/8',
      SMTP_URL: sink.url,
      MAIL_FROM: 'alerts@vigil.example',
    };
    let service = await startService(env);
    running.add(service);
    // The first of each stream is being sent, and held; a2 waits for a1.
    await expect
      .poll(
        () =>
          receiver
            .held()
            .map((request) => request.target)
            .sort(),
        {
          timeout: 30_000,
        },
      )
      .toEqual(['/a1', '/b1', '/c1']);
    expect(to('/a2')).toEqual([]);

    process.kill(service.pid, 'SIGKILL');
    expect((await service.exited).signal).toBe('SIGKILL');
    running.delete(service);
    await expect.poll(() => receiver.held()).toEqual([]);

    if (settings.engine === 'postgres') {
      const database = await openServiceDatabase(settings);
      try {
        await sql`update deliveries set lease_until = now() - interval '1 second'
                   where state = 'sending'`.execute(database.db);
      } finally {
        await database.close();
      }
    }

    // Started again; the receiver answers now.
    receiver.answer(() => ({ status: 200 }));
    service = await startService(env);
    running.add(service);
    await expect
      .poll(() => paths.map((path) => to(path).length), { timeout: 60_000 })
      .toEqual([2, 1, 2, 2]);
    process.kill(service.pid, 'SIGTERM');
    expect((await service.exited).code).toBe(0);
    running.delete(service);

    // The held ones came again under their first attempt's webhook-id,
    // and every request verifies.
    for (const path of ['/a1', '/b1', '/c1']) {
      const [first, again] = to(path);
      expect(first?.headers['webhook-id']).toBeTruthy();
      expect(again?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
      expect(again?.body).toBe(first?.body);
    }
    const webhookIds = paths.map((path) => to(path)[0]?.headers['webhook-id']);
    expect(new Set(webhookIds).size).toBe(paths.length);
    for (const request of receiver.requests) {
      const payload = new Webhook(secret).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }) as { type: string };
      expect(payload.type).toBe('site.down');
    }
    // a2 went only once a1 had arrived.
    const [, a1Again] = to('/a1');
    const [a2] = to('/a2');
    expect(a2?.at).toBeGreaterThanOrEqual(a1Again?.answeredAt ?? Infinity);

    // And the rows say so.
    const database = await openServiceDatabase(settings);
    try {
      const { rows } = await sql<{ id: string; state: string }>`
        select id::text as id, state from deliveries
         where id = any(${ids.map(Number)}::bigint[]) order by id`.execute(
        database.db,
      );
      expect(rows.map((row) => row.state)).toEqual([
        'sent',
        'sent',
        'sent',
        'sent',
      ]);
    } finally {
      await database.close();
    }
  });
});
