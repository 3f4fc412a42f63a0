/**
 * `npm run bench:claim` (docs/performance.md, "Alerts"): what the outbox's
 * claim (server/outbox/deliveries.ts, `claim`) costs when a backlog forms
 * after the planner's statistics were taken, and once they are refreshed
 * (`refreshStatistics`, which the outbox runs after a full claim: ADR-0130),
 * on PostgreSQL (harness/page/embeddedPostgres.ts) and PGlite, in one run.
 *
 * Each engine: a fresh database with 100,000 finished deliveries (sent
 * mails, as days of sign-ups leave), analyzed while nothing is pending;
 * then a backlog of `--backlog` due mails (an incident's alerts), claimed
 * 50 at a time until none is left, with those statistics; then as many
 * again, claimed after `refreshStatistics` (with the first backlog's
 * index entries still in the lane's index, as between two incidents
 * before a vacuum: if anything, against the refreshed side). Prints each claim's time
 * (median, p99, all of them) and the ratio stale ÷ refreshed.
 *
 * Usage: `npm run bench:claim [-- --backlog 5000 --engines postgres,pglite]`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql, type Kysely } from 'kysely';
import { startEmbeddedPostgres } from '../../harness/page/embeddedPostgres';
import type { DatabaseSettings } from '../../server/db/database';
import { deliveriesRepository } from '../../server/outbox/deliveries';
import { openServiceDatabase, type Schema } from '../../server/schema';
import { quantile } from './quantile';

const { values: options } = parseArgs({
  options: {
    backlog: { type: 'string', default: '5000' },
    engines: { type: 'string', default: 'postgres,pglite' },
  },
});
const BACKLOG = Number(options.backlog);
const FINISHED = 100_000;
/** A claim's size: a lane's slots (server/outbox/deliverer.ts). */
const CLAIM = 50;
/** The outbox's lease (ms); no claim here outlives it. */
const LEASE_MS = 370_000;

/** A claim's times (ms), sorted. */
interface Claims {
  times: number[];
  claimed: number;
}

const sum = (values: readonly number[]): number =>
  values.reduce((total, value) => total + value, 0);

/** Adds `count` mail deliveries in `state` to one account, each its own stream. */
async function addDeliveries(
  db: Kysely<Schema>,
  accountId: string,
  count: number,
  state: 'sent' | 'pending',
  streamFrom: number,
): Promise<void> {
  await sql`insert into deliveries (kind, channel, account_id, target, stream,
      payload, state, sent_at, deadline_at, next_attempt_at)
    select 'site.down', 'email', ${accountId}::uuid, 'someone@example.test',
           'bench:' || (n + ${streamFrom}), '{}'::jsonb, ${state},
           case when ${state} = 'sent' then now() end,
           now() + interval '1 hour', now() - interval '1 second'
      from generate_series(1, ${count}) as n`.execute(db);
}

/** Claims the mail lane `CLAIM` at a time until nothing is due. */
async function claimAll(
  repository: ReturnType<typeof deliveriesRepository>,
): Promise<Claims> {
  const times: number[] = [];
  let claimed = 0;
  for (;;) {
    const started = performance.now();
    const rows = await repository.claim(CLAIM, LEASE_MS, 'mail');
    times.push(performance.now() - started);
    claimed += rows.length;
    if (rows.length === 0) break;
  }
  times.sort((a, b) => a - b);
  return { times, claimed };
}

const line = (label: string, { times, claimed }: Claims): string =>
  `  ${label}: ${claimed} claimed in ${times.length} claims; per claim median ${quantile(times, 0.5).toFixed(1)} ms, p99 ${quantile(times, 0.99).toFixed(1)} ms; all ${sum(times).toFixed(0)} ms`;

async function benchEngine(settings: DatabaseSettings): Promise<void> {
  const database = await openServiceDatabase(settings);
  const { db } = database;
  try {
    const { rows } = await sql<{ id: string }>`
      insert into accounts (name, email, site_url, newsletter)
      values ('Bench', 'bench@example.test', 'https://site.test/', false)
      returning id`.execute(db);
    const accountId = rows[0]?.id ?? '';
    await addDeliveries(db, accountId, FINISHED, 'sent', 0);
    await sql`analyze deliveries`.execute(db);
    const repository = deliveriesRepository(db);

    await addDeliveries(db, accountId, BACKLOG, 'pending', FINISHED);
    const stale = await claimAll(repository);

    await addDeliveries(db, accountId, BACKLOG, 'pending', FINISHED + BACKLOG);
    const started = performance.now();
    await repository.refreshStatistics();
    const analyzeMs = performance.now() - started;
    const fresh = await claimAll(repository);

    console.log(
      `${settings.engine}: ${FINISHED.toLocaleString('en')} finished deliveries, a backlog of ${BACKLOG.toLocaleString('en')} due, claims of ${CLAIM}`,
    );
    console.log(line('statistics taken before the backlog', stale));
    console.log(
      line(`after refreshStatistics (${analyzeMs.toFixed(0)} ms)`, fresh),
    );
    console.log(
      `  stale ÷ refreshed: ${(quantile(stale.times, 0.5) / quantile(fresh.times, 0.5)).toFixed(1)}× per claim (medians), ${(sum(stale.times) / (sum(fresh.times) + analyzeMs)).toFixed(1)}× in all (the analyze counted)`,
    );
  } finally {
    await database.close();
  }
}

const engines = new Set(options.engines.split(','));
if (engines.has('postgres')) {
  const server = await startEmbeddedPostgres();
  try {
    await server.createDatabase('claims');
    await benchEngine({ engine: 'postgres', url: server.urlOf('claims') });
  } finally {
    await server.stop();
  }
}
if (engines.has('pglite')) {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-claims-'));
  try {
    await benchEngine({ engine: 'pglite', dataDir });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
