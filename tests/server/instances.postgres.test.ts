/**
 * Several instances of the service on one PostgreSQL server
 * (docs/contract.md "Configuration": `DATABASE_URL`; ADR-0047): they start
 * together and apply each migration once, count one rate limit, make one
 * account of simultaneous sign-ups with one address, and survive the
 * database failing under them, even when a killed connection's socket
 * closes late (a relay holds the close back); and they send each queued
 * mail once, under one limit per address. PostgreSQL only: an embedded
 * data directory belongs to one process (tests/server/process.test.ts).
 */
import { connect, createServer, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FORM,
  apiServer,
  expectApiAnswer,
  validSignUp,
} from './support/apiServer';
import { SIGN_UP_PATH } from '../../contract/signUp';
import { MIGRATIONS } from '../../server/schema';
import { scratchDatabase } from '../../harness/page/scratchDatabase';
import {
  startEmbeddedPostgres,
  type EmbeddedPostgresServer,
} from '../../harness/page/embeddedPostgres';
import type { DatabaseSettings } from '../../server/db/database';
import { atPublicHost, sinkMailOptions } from './support/mailService';
import { startSmtpSink, type SmtpSink } from '../../harness/mail/smtpSink';

function signUpThrough(
  app: FastifyInstance,
  body = validSignUp(),
  remoteAddress = '198.51.100.7',
) {
  return app.inject({
    method: 'POST',
    url: SIGN_UP_PATH,
    headers: { 'content-type': FORM },
    payload: body.toString(),
    remoteAddress,
  });
}

describe('two instances on one database', () => {
  let settings: DatabaseSettings;
  let a: FastifyInstance;
  let b: FastifyInstance;

  beforeAll(async () => {
    settings = await scratchDatabase();
    expect(settings.engine).toBe('postgres');
    // Started together on an empty database: both run the migrator.
    [a, b] = await Promise.all([
      apiServer({ database: settings, rateLimit: 5 }),
      apiServer({ database: settings, rateLimit: 5 }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('applied each migration once', async () => {
    const rows = await a.database.db
      .selectFrom('kysely_migration' as never)
      .select('name' as never)
      .execute();
    expect(rows.map((row) => (row as { name: string }).name).sort()).toEqual(
      Object.keys(MIGRATIONS).sort(),
    );
  });

  it('count one rate limit: with a limit of 5, the sixth sign-up from one address is refused', async () => {
    const answers = [];
    for (const instance of [a, b, a, b, a, b]) {
      answers.push(await signUpThrough(instance));
    }
    expect(answers.map((answer) => answer.statusCode)).toEqual([
      200, 200, 200, 200, 200, 429,
    ]);
    const sixth = answers[5];
    if (!sixth) throw new Error('six sign-ups were sent');
    expect(expectApiAnswer(sixth)).toEqual({
      success: false,
      code: 'CSAPI_API_RATE_LIMIT_REACHED',
      info: 'rate limit',
    });
    // Another address is counted apart.
    expect(
      (await signUpThrough(b, validSignUp(), '198.51.100.8')).statusCode,
    ).toBe(200);
  });

  it('make one account of simultaneous sign-ups with one address', async () => {
    const email = `both.${process.pid}@example.com`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        signUpThrough(
          index % 2 ? a : b,
          validSignUp({ email: index % 3 ? email : email.toUpperCase() }),
          `203.0.113.${index + 1}`,
        ),
      ),
    );
    const bodies = answers.map(expectApiAnswer);
    expect(bodies.filter((body) => body.success)).toHaveLength(1);
    expect(
      bodies.filter(
        (body) => !body.success && body.code === 'CSAPI_EMAIL_IN_USE',
      ),
    ).toHaveLength(7);
  });
});

/**
 * A TCP relay in front of the database server that passes every byte at once
 * but hands on the server's end of a connection only after `lingerMs`: a
 * loaded machine, where a backend's FATAL message arrives well before its
 * socket closes.
 *
 * @returns the relay's port, and `close` to stop it
 */
async function lingeringRelay(
  target: { host: string; port: number },
  lingerMs: number,
): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => setTimeout(() => client.end(), lingerMs));
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const address = relay.address();
  if (address === null || typeof address === 'string') {
    throw new Error('the relay listens on a TCP port');
  }
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        relay.close(() => resolve());
      }),
  };
}

describe('two instances sending mail from one database (ADR-0095)', () => {
  let settings: DatabaseSettings;
  let sink: SmtpSink;
  let a: FastifyInstance;
  let b: FastifyInstance;

  beforeAll(async () => {
    settings = await scratchDatabase();
    sink = await startSmtpSink();
    // The senders start together, once the mails are queued.
    const mail = sinkMailOptions(sink, {
      autoStart: false,
      pollIntervalMs: 10,
    });
    [a, b] = await Promise.all([
      apiServer({ database: settings, mail }),
      apiServer({ database: settings, mail }),
    ]);
    // Requests come as visitors at PUBLIC_URL send them (ADR-0109).
    for (const app of [a, b]) app.inject = atPublicHost(app);
  });

  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await sink.stop();
  });

  it('send each mail once', async () => {
    const emails: string[] = [];
    for (let index = 0; index < 60; index += 1) {
      const body = validSignUp();
      emails.push(body.get('email') ?? '');
      const answer = await signUpThrough(
        index % 2 === 0 ? a : b,
        body,
        `198.51.100.${index + 10}`,
      );
      expect(answer.statusCode).toBe(200);
    }
    await Promise.all([
      a.outbox.deliverer?.start(),
      b.outbox.deliverer?.start(),
    ]);
    await sink.waitForMessages(60);
    await Promise.all([
      a.outbox.deliverer?.drain(),
      b.outbox.deliverer?.drain(),
    ]);
    const sentTo = sink.messages.flatMap((message) =>
      [message.to ?? []]
        .flat()
        .flatMap((to) => to.value.map((box) => box.address)),
    );
    expect(sentTo.sort()).toEqual([...emails].sort());
    expect(
      new Set(sink.messages.map((message) => message.messageId)).size,
    ).toBe(60);
  });

  it('hold one limit of mails per address', async () => {
    const email = anAccountsAddress();
    const before = sink.messages.length;
    for (const app of [a, b, a, b]) {
      const answer = await app.inject({
        method: 'POST',
        url: '/signin',
        headers: { 'content-type': FORM, 'sec-fetch-site': 'same-origin' },
        payload: new URLSearchParams({ email }).toString(),
      });
      expect(answer.statusCode).toBe(200);
    }
    await Promise.all([
      a.outbox.deliverer?.drain(),
      b.outbox.deliverer?.drain(),
    ]);
    // One mail a minute per address (ADR-0097), whichever instance is asked.
    expect(sink.messages.length - before).toBe(1);
  });

  /** An address with an account: the first mail's. */
  function anAccountsAddress(): string {
    const to = [sink.messages[0]?.to ?? []].flat()[0]?.value[0]?.address;
    if (!to) throw new Error('no mail yet');
    return to;
  }
});

describe('the database failing under the service', () => {
  let server: EmbeddedPostgresServer;
  let relay: Awaited<ReturnType<typeof lingeringRelay>>;
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    // A server of its own: this test stops it.
    server = await startEmbeddedPostgres();
    url = await server.createDatabase('outage');
    const direct = new URL(url);
    relay = await lingeringRelay(
      { host: direct.hostname, port: Number(direct.port) },
      500,
    );
    const relayed = new URL(url);
    relayed.hostname = '127.0.0.1';
    relayed.port = String(relay.port);
    app = await apiServer({
      database: { engine: 'postgres', url: relayed.toString() },
    });
  });

  afterAll(async () => {
    await app.close();
    await relay.close();
    await server.stop();
  });

  it('answers a general failure while the server is down, and recovers when it is back', async () => {
    expect((await signUpThrough(app)).statusCode).toBe(200);
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);

    await server.pause();
    const body = validSignUp();
    const refused = await signUpThrough(app, body);
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toEqual({
      success: false,
      code: 'CSAPI_SERVICE_UNAVAILABLE',
      info: 'database',
    });
    const health = await app.inject({ url: '/healthz' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ status: 'unavailable' });
    const account = await app.inject({
      url: '/',
      headers: { cookie: 'Vigil_SESSION=some-session' },
    });
    expect(account.statusCode).toBe(503);
    expect(account.body).toContain('data-testid="signin-unavailable"');

    await server.resume();
    // The same sign-up, sent again, now goes through.
    expect((await signUpThrough(app, body)).statusCode).toBe(200);
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });

  it('answers a general failure when the database fails in the middle of a sign-up', async () => {
    // The service is well before the failure.
    expect((await signUpThrough(app)).statusCode).toBe(200);
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    try {
      // Hold the table, so the sign-up's insert waits inside the database…
      await blocker.query('begin');
      await blocker.query('lock table accounts in access exclusive mode');
      const inFlight = signUpThrough(app);
      await expect
        .poll(async () => {
          const { rows } = await blocker.query<{ count: string }>(
            "select count(*) from pg_stat_activity where wait_event_type = 'Lock' and datname = 'outage'",
          );
          return Number(rows[0]?.count);
        })
        .toBe(1);
      // …then end its connection there.
      await blocker.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where wait_event_type = 'Lock' and datname = 'outage'",
      );
      const answer = await inFlight;
      expect(answer.statusCode, answer.body).toBe(503);
      expect(answer.json()).toMatchObject({
        code: 'CSAPI_SERVICE_UNAVAILABLE',
      });
      await blocker.query('rollback');
    } finally {
      await blocker.end();
    }
    // The ended connection's socket is still open (the relay holds its
    // close back): the next sign-up must not be given that connection.
    const next = await signUpThrough(app);
    expect(next.statusCode, next.body).toBe(200);
  });
});
