/**
 * What housekeeping does to the outbox's rows (ADR-0089, as the outbox
 * promises it: server/outbox/migrations/0018_deliveries.ts, "`target`,
 * `secret` and the copy of what was sent are dropped 7 days after the
 * delivery ended"; server/outbox/deliveries.ts, rows "kept 30 days after
 * [the delivery] was sent or died … rows still to send are never
 * touched"):
 *
 * - 7 days after a delivery was sent or died, its copies (the target,
 *   which may be a secret URL or an address; the signing secret; the
 *   subject and text sent) are dropped, and the row stays;
 * - 30 days after, the row is deleted;
 * - a delivery not yet sent (pending, or being sent) is never touched,
 *   however old.
 *
 * Ages are set in the rows (the database's clock decides); the service's
 * own housekeeping timer is the test's (fake `setInterval`): one pass
 * runs when the test moves it, and the test waits for the pass's effect,
 * never for a time.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HOUSEKEEPING_INTERVAL_MS } from '../../../server/app';
import {
  startOutboxService,
  testNotice,
  webhookSecret,
  type DeliveryRow,
  type OutboxService,
} from '../support/outboxService';

let outbox: OutboxService;

beforeAll(async () => {
  // Only the service's housekeeping timer is the test's.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  outbox = await startOutboxService();
});

afterAll(async () => {
  await outbox.close();
  vi.useRealTimers();
});

/** One delivery's row as a past state left it. */
async function rowAged(
  label: string,
  state: DeliveryRow['state'],
  /** SQL interval: how long ago it was sent or died, or was queued. */
  ago: string,
): Promise<string> {
  const ended = sql`now() - ${ago}::interval`;
  const { rows } = await sql<{ id: string | number }>`
    insert into deliveries (kind, channel, account_id, target, secret, stream,
                            payload, deadline_at, created_at, state, attempts,
                            next_attempt_at, lease_until, sent_at, dead_at,
                            last_error, last_status, subject, text_body)
    values ('test.ping', 'webhook', ${outbox.accountId}::uuid,
            ${`https://hooks.example/${label}?token=secret-url`},
            ${webhookSecret()}, ${`housekeeping:${label}`},
            ${JSON.stringify(testNotice(label))}::jsonb,
            ${ended} + interval '1 hour', ${ended} - interval '1 minute',
            ${state}, 1, ${ended},
            ${state === 'sending' ? ended : null},
            ${state === 'sent' ? ended : null},
            ${state === 'dead' ? ended : null},
            ${state === 'dead' ? 'it answered HTTP 500' : null},
            ${state === 'dead' ? 500 : state === 'sent' ? 200 : null},
            ${state === 'sent' ? `Subject ${label}` : null},
            ${state === 'sent' ? `Text of ${label}` : null})
    returning id`.execute(outbox.app.database.db);
  return String(rows[0]?.id);
}

/** A row, or undefined once deleted. */
async function rowOrNone(id: string): Promise<DeliveryRow | undefined> {
  return outbox.row(id).catch(() => undefined);
}

describe('housekeeping of deliveries', () => {
  it('drops the copies 7 days after a delivery ended, deletes its row after 30, and never touches one not yet sent', async () => {
    const ids = {
      sentJustUnder7: await rowAged('sent-6d23h', 'sent', '6 days 23 hours'),
      sentJustOver7: await rowAged('sent-7d1h', 'sent', '7 days 1 hour'),
      deadJustUnder7: await rowAged('dead-6d23h', 'dead', '6 days 23 hours'),
      deadJustOver7: await rowAged('dead-7d1h', 'dead', '7 days 1 hour'),
      sentJustUnder30: await rowAged('sent-29d23h', 'sent', '29 days 23 hours'),
      sentJustOver30: await rowAged('sent-30d1h', 'sent', '30 days 1 hour'),
      deadJustOver30: await rowAged('dead-30d1h', 'dead', '30 days 1 hour'),
      pendingOld: await rowAged('pending-90d', 'pending', '90 days'),
      sendingOld: await rowAged('sending-90d', 'sending', '90 days'),
    };
    const before = Object.fromEntries(
      await Promise.all(
        Object.entries(ids).map(
          async ([name, id]) => [name, await outbox.row(id)] as const,
        ),
      ),
    );

    // The service's own pass, when its timer fires: first the copies,
    // then the old rows.
    vi.advanceTimersByTime(HOUSEKEEPING_INTERVAL_MS);
    await expect
      .poll(() => rowOrNone(ids.sentJustOver30), { timeout: 30_000 })
      .toBeUndefined();
    await expect
      .poll(() => rowOrNone(ids.deadJustOver30), { timeout: 30_000 })
      .toBeUndefined();

    const copiesGone = {
      target: null,
      secret: null,
      subject: null,
      text_body: null,
    };
    for (const name of [
      'sentJustOver7',
      'deadJustOver7',
      'sentJustUnder30',
    ] as const) {
      const row = await outbox.row(ids[name]);
      expect(row, name).toMatchObject(copiesGone);
      // The record stays: what went out, when, and how it ended.
      const record = Object.fromEntries(
        Object.entries(before[name] ?? {}).filter(
          ([column]) => !Object.hasOwn(copiesGone, column),
        ),
      );
      expect(row, name).toMatchObject(record);
    }
    for (const name of [
      'sentJustUnder7',
      'deadJustUnder7',
      'pendingOld',
      'sendingOld',
    ] as const) {
      expect(await outbox.row(ids[name]), name).toEqual(before[name]);
    }
    expect(before.sentJustUnder7?.subject).toBe('Subject sent-6d23h');
    expect(before.pendingOld?.target).toContain('secret-url');
  });
});
