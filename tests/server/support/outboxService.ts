/**
 * What the outbox's tests (tests/server/outbox/) share: receivers of HTTP
 * deliveries on 127.0.0.1 that record what they see and answer as the
 * test says (at once, late, never), a service whose outbox delivers
 * through the monitor's SSRF-safe POST under the test's resolver and the
 * loopback tripwire, an account to queue deliveries for, and the SQL a
 * test uses to queue a delivery, read it, and move its next attempt into
 * the past (the worker runs on the database's `now()`: no test waits out
 * a backoff).
 *
 * Deliveries of the test kind `test.ping` carry their notice in their
 * payload: the renderer the service gets here answers each delivery with
 * it, and records what it rendered.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { ServerOptions } from '../../../server/app';
import type { MonitorOptions } from '../../../server/monitor/index';
import type {
  ChannelKind,
  ClaimedDelivery,
  Notice,
} from '../../../server/outbox/index';
import {
  testClock,
  testMonitorOptions,
} from '../../../harness/monitor/monitorService';
import {
  loopbackTripwire,
  testResolver,
  type TestAnswer,
  type TestResolver,
  type Tripwire,
} from '../../../harness/monitor/tripwire';
import { signUpForLogin } from './apiServer';
import {
  startMailService,
  type MailService,
  type SinkMailOverrides,
} from './mailService';

/** The test's kind of delivery: its notice is its payload. */
export const TEST_KIND = 'test.ping';

/** A request as a receiver saw it. */
export interface SeenRequest {
  method: string;
  /** The request target (`/path?query`). */
  target: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When its body was in (Date.now()). */
  at: number;
  /** When the receiver's answer was written (Date.now()); undefined while held. */
  answeredAt: number | undefined;
}

/** How a receiver answers one request. */
export type Answer =
  | {
      status: number;
      headers?: Record<string, string>;
      body?: string;
      /** Answer after this long (ms); the answer is dropped if the receiver closes first. */
      delayMs?: number;
    }
  | 'hold';

/** A node:http server on 127.0.0.1, port 0. */
export interface Receiver {
  port: number;
  /** Every request, in the order their bodies came in. */
  requests: SeenRequest[];
  /** A URL of it under a test name (map the name to 127.0.0.1). */
  url(path?: string, host?: string): string;
  /** Requests whose answer has not been written yet. */
  held(): SeenRequest[];
  /** Answers every held request now, as `answer` says. */
  release(answer?: Exclude<Answer, 'hold'>): void;
  /** Changes how later requests are answered. */
  answer(how: (request: SeenRequest, index: number) => Answer): void;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a receiver.
 *
 * @param how the answer to each request (its index counts from 0);
 *   default 200 with an empty body
 */
export async function startReceiver(
  how: (request: SeenRequest, index: number) => Answer = () => ({
    status: 200,
  }),
): Promise<Receiver> {
  let decide = how;
  const requests: SeenRequest[] = [];
  const holding = new Map<SeenRequest, ServerResponse>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const write = (
    seen: SeenRequest,
    response: ServerResponse,
    answer: Exclude<Answer, 'hold'>,
  ) => {
    if (response.destroyed || response.writableEnded) return;
    seen.answeredAt = Date.now();
    response.writeHead(answer.status, {
      'content-type': 'text/plain',
      ...answer.headers,
    });
    response.end(answer.body ?? '');
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const seen: SeenRequest = {
        method: request.method ?? '',
        target: request.url ?? '/',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        answeredAt: undefined,
      };
      const index = requests.length;
      requests.push(seen);
      const answer = decide(seen, index);
      if (answer === 'hold') {
        holding.set(seen, response);
        response.once('close', () => holding.delete(seen));
        return;
      }
      if (answer.delayMs) {
        holding.set(seen, response);
        response.once('close', () => holding.delete(seen));
        const timer = setTimeout(() => {
          timers.delete(timer);
          holding.delete(seen);
          write(seen, response, answer);
        }, answer.delayMs);
        timers.add(timer);
        return;
      }
      write(seen, response, answer);
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    requests,
    url: (path = '/hook', host = 'hook.test') =>
      `http://${host}:${port}${path}`,
    held: () => [...holding.keys()],
    release(answer = { status: 200 }) {
      for (const [seen, response] of [...holding]) {
        holding.delete(seen);
        write(seen, response, answer);
      }
    },
    answer(next) {
      decide = next;
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A Standard Webhooks secret (`whsec_` + base64 of 32 random bytes), the test's own. */
export function webhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A notice for the test kind, with a webhook body naming `label`. */
export function testNotice(label: string, overrides: Partial<Notice> = {}) {
  return {
    subject: `Test ${label}`,
    paragraphs: [`This is delivery ${label}.`, 'A second paragraph.'],
    link: { label: 'Open', url: `https://vigil.example/sites/${label}` },
    urgency: 'default',
    tags: ['test_tube'],
    webhook: { type: 'test', label, occurred_at: '2025-01-02T03:04:05.000Z' },
    ...overrides,
  } satisfies Notice;
}

/** A delivery to queue. */
export interface QueuedDelivery {
  channel: ChannelKind;
  target: string;
  secret?: string | null;
  stream: string;
  /** Default {@link TEST_KIND}. */
  kind?: string;
  /** The payload (for {@link TEST_KIND}: the notice). */
  payload: unknown;
  /** SQL interval from now, default `1 hour` (an alert's deadline). */
  deadlineIn?: string;
  channelId?: string | null;
}

/** A delivery's row as the tests read it. */
export interface DeliveryRow {
  id: string;
  state: 'pending' | 'sending' | 'sent' | 'dead';
  attempts: number;
  next_attempt_at: Date;
  lease_until: Date | null;
  deadline_at: Date;
  created_at: Date;
  sent_at: Date | null;
  dead_at: Date | null;
  last_error: string | null;
  last_status: number | null;
  target: string | null;
  secret: string | null;
  subject: string | null;
  text_body: string | null;
}

/**
 * Queues deliveries with SQL, as a feature's statement does.
 *
 * @returns their ids, in order
 */
export async function queueDeliveries(
  app: FastifyInstance,
  accountId: string,
  deliveries: readonly QueuedDelivery[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const delivery of deliveries) {
    const { rows } = await sql<{ id: string | number }>`
      insert into deliveries (kind, channel, account_id, channel_id, target,
                              secret, stream, payload, deadline_at)
      values (${delivery.kind ?? TEST_KIND}, ${delivery.channel},
              ${accountId}::uuid, ${delivery.channelId ?? null}::bigint,
              ${delivery.target}, ${delivery.secret ?? null},
              ${delivery.stream}, ${JSON.stringify(delivery.payload)}::jsonb,
              now() + ${delivery.deadlineIn ?? '1 hour'}::interval)
      returning id`.execute(app.database.db);
    ids.push(String(rows[0]?.id));
  }
  return ids;
}

/** A delivery's row. */
export async function deliveryRow(
  app: FastifyInstance,
  id: string,
): Promise<DeliveryRow> {
  const { rows } = await sql<DeliveryRow>`
    select id::text as id, state, attempts, next_attempt_at, lease_until,
           deadline_at, created_at, sent_at, dead_at, last_error, last_status,
           target, secret, subject, text_body
      from deliveries where id = ${id}::bigint`.execute(app.database.db);
  const row = rows[0];
  if (!row) throw new Error(`no delivery ${id}`);
  return row;
}

/** The database's clock (the worker's). */
export async function databaseNow(app: FastifyInstance): Promise<number> {
  const { rows } = await sql<{
    now: Date;
  }>`select clock_timestamp() as now`.execute(app.database.db);
  return (rows[0]?.now ?? new Date(Number.NaN)).getTime();
}

/** Moves deliveries' next attempts a second into the past: due now. */
export async function dueNow(
  app: FastifyInstance,
  ids: readonly string[],
): Promise<void> {
  await sql`update deliveries
               set next_attempt_at = now() - interval '1 second'
             where id = any(${ids.map(Number)}::bigint[])
               and state = 'pending'`.execute(app.database.db);
}

/** An account's id, by its address. */
export async function accountIdOf(
  app: FastifyInstance,
  email: string,
): Promise<string> {
  const { rows } = await sql<{ id: string }>`
    select id from accounts where lower(email) = lower(${email})`.execute(
    app.database.db,
  );
  const id = rows[0]?.id;
  if (!id) throw new Error(`no account for ${email}`);
  return id;
}

/** A service whose outbox delivers on loopback only. */
export interface OutboxService {
  service: MailService;
  app: FastifyInstance;
  tripwire: Tripwire;
  resolver: TestResolver;
  /** An account of its own, to queue deliveries for. */
  accountId: string;
  /** What the test kind's renderer was asked to word, in order. */
  rendered: ClaimedDelivery[];
  /** Each call of the test kind's renderer (one per claim): when, and how many. */
  renders: { at: number; size: number }[];
  queue(deliveries: readonly QueuedDelivery[]): Promise<string[]>;
  row(id: string): Promise<DeliveryRow>;
  /** Sends everything due, then resolves. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a service with mail (an SMTP sink of its own) and the monitor's
 * options (not checking), whose outbox worker does not start by itself:
 * the test drains it, or starts it.
 *
 * @param options.names the test resolver's table (default `hook.test` →
 *   127.0.0.1)
 * @param options.monitor more monitor options (`postTimeouts`,
 *   `allowedNetworks`)
 * @param options.server more service options
 * @param options.mail more mail options (another SMTP server's URL)
 */
export async function startOutboxService(
  options: {
    names?: Readonly<Record<string, TestAnswer>>;
    monitor?: Partial<MonitorOptions>;
    server?: Partial<ServerOptions>;
    mail?: SinkMailOverrides;
  } = {},
): Promise<OutboxService> {
  const tripwire = loopbackTripwire();
  const resolver = testResolver(
    options.names ?? { 'hook.test': ['127.0.0.1'] },
  );
  const service = await startMailService(
    {
      monitor: testMonitorOptions(testClock(), tripwire, {
        resolve: resolver.resolve,
        ...options.monitor,
      }),
      ...options.server,
    },
    // The product's own backoff (1 s, doubling to 5 min), not the mail
    // tests' short one; the worker starts when the test says.
    { autoStart: false, retry: undefined, ...options.mail },
  );
  const { app } = service;
  const rendered: ClaimedDelivery[] = [];
  const renders: { at: number; size: number }[] = [];
  app.outbox.renderer(TEST_KIND, async (deliveries) => {
    rendered.push(...deliveries);
    renders.push({ at: Date.now(), size: deliveries.length });
    return new Map(
      deliveries.map((delivery) => [delivery.id, delivery.payload as Notice]),
    );
  });
  const { body } = await signUpForLogin(app);
  const accountId = await accountIdOf(app, body.get('email') ?? '');
  return {
    service,
    app,
    tripwire,
    resolver,
    accountId,
    rendered,
    renders,
    queue: (deliveries) => queueDeliveries(app, accountId, deliveries),
    row: (id) => deliveryRow(app, id),
    async drain() {
      await app.outbox.deliverer?.drain();
    },
    close: () => service.close(),
  };
}
