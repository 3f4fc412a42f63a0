/**
 * Migration 0016 (issue 58, "words at the edge"; ADR-0126): reasons that
 * earlier versions stored in words become `{"code": "worded", "words": …}`
 * in the monitor, its incidents and a queued "down" alert, so that
 * nothing an open incident or an unsent mail says is lost, and new
 * reasons are kept as codes.
 *
 * The 0015 shape of the three places is made again inside a transaction
 * (as migration 0010 created them: text, at most 500 characters), the
 * migration's `up` runs on it, and the transaction is rolled back.
 */
import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from '../../../harness/page/scratchDatabase';
import type { Database } from '../../../server/db/database';
import { openServiceDatabase, type Schema } from '../../../server/schema';
import { up } from '../../../server/monitor/migrations/0016_reason_codes';

let database: Database<Schema>;

beforeAll(async () => {
  database = await openServiceDatabase(await scratchDatabase());
});
afterAll(() => database.close());

/** Rolls a transaction back once `body` is done. */
class RolledBack extends Error {}

async function inRolledBack(
  body: (trx: Transaction<Schema>) => Promise<void>,
): Promise<void> {
  await expect(
    database.db.transaction().execute(async (trx) => {
      await body(trx);
      throw new RolledBack();
    }),
  ).rejects.toBeInstanceOf(RolledBack);
}

describe('migration 0016: reasons kept in words become worded causes', () => {
  it('converts the monitor, its incident and a queued "down" alert, and keeps a null reason null', async () => {
    await inRolledBack(async (trx) => {
      for (const table of ['monitors', 'monitor_incidents']) {
        await sql`alter table ${sql.table(table)}
          drop constraint ${sql.ref(`${table}_reason_size`)}`.execute(trx);
        await sql`alter table ${sql.table(table)}
          alter column reason type text using null`.execute(trx);
        await sql`alter table ${sql.table(table)}
          add constraint ${sql.ref(`${table}_reason_length`)}
          check (char_length(reason) <= 500)`.execute(trx);
      }
      const accounts = await trx
        .insertInto('accounts')
        .values(
          ['ada.0016@example.com', 'bob.0016@example.com'].map((email) => ({
            name: 'Ada',
            email,
            site_url: 'https://shop.example',
            newsletter: false,
            campaign: null,
          })),
        )
        .returning('id')
        .execute();
      const [accountId = '', otherId = ''] = accounts.map((row) => row.id);
      const words = 'HTTP 503 Service Unavailable';
      const monitors = await sql<{ id: string }>`
        insert into monitors (account_id, site_url, state, failing_since, reason)
        values (${accountId}, 'https://shop.example', 'down', now(), ${words}),
               (${otherId}, 'https://other.example', 'up', null, null)
        returning id`.execute(trx);
      const [down, healthy] = monitors.rows.map((row) => String(row.id));
      await sql`insert into monitor_incidents (monitor_id, started_at, reason)
        values (${down}, now(), ${words})`.execute(trx);
      // The outbox of 0015's shape (migration 0020 moved its rows into
      // the outbox of notifications and dropped it): its columns 0016 reads.
      await sql`create table mail_outbox (
        id bigint generated always as identity primary key,
        kind text not null, account_id uuid not null, recipient text,
        details jsonb)`.execute(trx);
      await sql`insert into mail_outbox (kind, account_id, recipient, details)
        values ('down', ${accountId}, 'ada.0016@example.com',
                ${JSON.stringify({ siteUrl: 'https://shop.example', startedAt: '2026-11-29T14:02:10.000Z', reason: words })}::jsonb),
               ('up', ${accountId}, 'ada.0016@example.com',
                ${JSON.stringify({ siteUrl: 'https://shop.example', startedAt: '2026-11-29T14:02:10.000Z', endedAt: '2026-11-29T14:12:10.000Z' })}::jsonb)`.execute(
        trx,
      );

      await up(trx as unknown as Transaction<unknown>);

      const worded = { code: 'worded', words };
      const kept = await trx
        .selectFrom('monitors')
        .select(['id', 'reason'])
        .where('account_id', 'in', [accountId, otherId])
        .orderBy('id')
        .execute();
      expect(kept.map((row) => [String(row.id), row.reason])).toEqual([
        [down, worded],
        [healthy, null],
      ]);
      const incidents = await trx
        .selectFrom('monitor_incidents')
        .select('reason')
        .where('monitor_id', '=', down ?? '')
        .execute();
      expect(incidents.map((row) => row.reason)).toEqual([worded]);
      const { rows: alerts } = await sql<{ kind: string; details: unknown }>`
        select kind, details from mail_outbox
         where account_id = ${accountId} order by id`.execute(trx);
      expect(alerts).toEqual([
        {
          kind: 'down',
          details: {
            siteUrl: 'https://shop.example',
            startedAt: '2026-11-29T14:02:10.000Z',
            reason: worded,
          },
        },
        {
          kind: 'up',
          details: {
            siteUrl: 'https://shop.example',
            startedAt: '2026-11-29T14:02:10.000Z',
            endedAt: '2026-11-29T14:12:10.000Z',
          },
        },
      ]);
    });
  });

  it('bounds a stored cause: a reason over 2,000 bytes is refused', async () => {
    await inRolledBack(async (trx) => {
      const { id: accountId } = await trx
        .insertInto('accounts')
        .values({
          name: 'Ada',
          email: 'ada.big@example.com',
          site_url: null,
          newsletter: false,
          campaign: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await expect(
        sql`insert into monitors (account_id, site_url, state, failing_since, reason)
          values (${accountId}, 'https://shop.example', 'suspect', now(),
                  ${JSON.stringify({ code: 'unreachable', detail: 'x'.repeat(2_001) })}::jsonb)`.execute(
          trx,
        ),
      ).rejects.toThrow(/monitors_reason_size/);
    });
  });
});
