/**
 * Every channel URL goes through the monitor's SSRF rules at each delivery
 * (issue 60, its SSRF section: "judged when
 * saved and again at each delivery (the same address rule, a pinned
 * connection, …, no redirect followed)"; Proof: "a redirect refused, a
 * channel URL that resolves to a private address refused … at send").
 * Refusals at save are the alerts' forms' business, not this file's.
 *
 * - A receiver that answers a redirect: not followed (the receiver it
 *   points to gets nothing), the delivery waits for a retry with an error
 *   that names the redirect.
 * - A URL whose host resolves, at send, to an address the rule refuses
 *   (a private one, the cloud metadata address, or loopback on a service
 *   whose rule does not allow it): nothing is connected, the error says
 *   so in plain words, and it is retried until its deadline.
 *
 * On loopback only: receivers on 127.0.0.1, names mapped by the test's
 * resolver, and the loopback tripwire, which also records every
 * connection the POST was about to open: a refused address must never
 * appear there.
 */
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowedNetworks } from '../../../server/monitor/check/addressRule';
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
let elsewhere: Receiver;
let streams = 0;
/** What `rebind.test` resolves to now (DNS rebinding between deliveries). */
let rebindTo = '127.0.0.1';

beforeAll(async () => {
  receiver = await startReceiver();
  elsewhere = await startReceiver();
  outbox = await startOutboxService({
    names: {
      'hook.test': ['127.0.0.1'],
      'private.test': ['10.0.0.1'],
      // One public-looking answer and one private: one refused address
      // refuses the name.
      'mixed.test': ['127.0.0.1', '192.168.1.20'],
      'rebind.test': () => [rebindTo],
    },
  });
});

afterAll(async () => {
  await outbox.close();
  await receiver.close();
  await elsewhere.close();
});

afterEach(() => {
  expect(outbox.tripwire.violations).toEqual([]);
});

/** Queues one webhook delivery in a stream of its own. */
async function queueOne(service: OutboxService, target: string) {
  streams += 1;
  const [id = ''] = await service.queue([
    {
      channel: 'webhook',
      target,
      secret: webhookSecret(),
      stream: `ssrf:${streams}`,
      payload: testNotice(`ssrf-${streams}`),
    },
  ]);
  return id;
}

/** Fails the delivery once more with a deadline a second away: dead. */
async function failUntilDead(service: OutboxService, id: string) {
  await sql`update deliveries set deadline_at = now() + interval '1 second'
             where id = ${id}::bigint`.execute(service.app.database.db);
  await dueNow(service.app, [id]);
  await service.drain();
}

describe('a redirect', () => {
  it.each([301, 302, 303, 307, 308])(
    'answered %i, is not followed: the delivery waits for a retry, its error naming the redirect',
    async (status) => {
      const path = `/moved-${status}`;
      receiver.answer((request) =>
        request.target === path
          ? {
              status,
              headers: { location: elsewhere.url('/landing') },
              body: 'Moved',
            }
          : { status: 200 },
      );
      const id = await queueOne(outbox, receiver.url(path));
      await outbox.drain();
      expect(
        receiver.requests.filter((request) => request.target === path),
      ).toHaveLength(1);
      expect(elsewhere.requests).toEqual([]);
      const row = await outbox.row(id);
      expect(row.state).toBe('pending');
      expect(row.attempts).toBe(1);
      expect(row.last_error).toMatch(/redirect/i);
      expect(row.last_error).toContain(String(status));
      expect(row.last_error).not.toContain('landing');
      // Still refused on the retry, and never followed.
      await dueNow(outbox.app, [id]);
      await outbox.drain();
      expect((await outbox.row(id)).attempts).toBe(2);
      expect(elsewhere.requests).toEqual([]);
    },
  );
});

describe('a channel URL that resolves to a refused address at send', () => {
  it.each([
    {
      what: 'a name resolving to 10.0.0.1',
      host: 'private.test',
      refused: '10.0.0.1',
    },
    {
      what: 'a name with one private address among its answers',
      host: 'mixed.test',
      refused: '192.168.1.20',
    },
    { what: 'the literal 10.0.0.1', host: '10.0.0.1', refused: '10.0.0.1' },
    {
      what: 'the cloud metadata address',
      host: '169.254.169.254',
      refused: '169.254.169.254',
    },
  ])(
    '($what) is not delivered, says why in plain words, and is retried until dead',
    async ({ host, refused }) => {
      const before = outbox.tripwire.attempts.length;
      const id = await queueOne(outbox, receiver.url('/private', host));
      await outbox.drain();
      let row = await outbox.row(id);
      expect(row.state).toBe('pending');
      expect(row.attempts).toBe(1);
      expect(row.last_error).toMatch(/not a public address/);
      expect(row.last_error).toContain(refused);
      // Our words, not a code.
      expect(row.last_error).not.toMatch(/not_public/);
      await failUntilDead(outbox, id);
      row = await outbox.row(id);
      expect(row.state).toBe('dead');
      expect(row.attempts).toBe(2);
      expect(row.last_error).toMatch(/not a public address/);
      // Nothing was connected to: not the refused address, nor any other.
      expect(outbox.tripwire.attempts.slice(before)).toEqual([]);
      expect(
        receiver.requests.filter((request) => request.target === '/private'),
      ).toEqual([]);
    },
  );

  it('is judged again at each delivery: a name that now resolves to a private address is refused', async () => {
    rebindTo = '127.0.0.1';
    const target = receiver.url('/rebind', 'rebind.test');
    const first = await queueOne(outbox, target);
    await outbox.drain();
    expect((await outbox.row(first)).state).toBe('sent');
    expect(
      receiver.requests.filter((request) => request.target === '/rebind'),
    ).toHaveLength(1);

    rebindTo = '172.16.0.9';
    const before = outbox.tripwire.attempts.length;
    const second = await queueOne(outbox, target);
    await outbox.drain();
    const row = await outbox.row(second);
    expect(row.state).toBe('pending');
    expect(row.last_error).toMatch(/172\.16\.0\.9 is not a public address/);
    expect(outbox.tripwire.attempts.slice(before)).toEqual([]);
    expect(
      receiver.requests.filter((request) => request.target === '/rebind'),
    ).toHaveLength(1);
  });
});

describe('loopback, on a service whose address rule does not allow it', () => {
  let strict: OutboxService;

  beforeAll(async () => {
    strict = await startOutboxService({
      monitor: { allowedNetworks: parseAllowedNetworks(undefined) },
    });
  });

  afterAll(() => strict.close());

  it('is refused before any connection, and retried until dead', async () => {
    const path = '/strict';
    const id = await queueOne(strict, receiver.url(path));
    await strict.drain();
    let row = await strict.row(id);
    expect(row.state).toBe('pending');
    expect(row.last_error).toMatch(/127\.0\.0\.1 is not a public address/);
    await failUntilDead(strict, id);
    row = await strict.row(id);
    expect(row.state).toBe('dead');
    expect(strict.tripwire.attempts).toEqual([]);
    expect(strict.tripwire.violations).toEqual([]);
    expect(
      receiver.requests.filter((request) => request.target === path),
    ).toEqual([]);
  });
});
