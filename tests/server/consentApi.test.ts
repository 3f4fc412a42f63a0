/**
 * Proof of consent on the run's engine (ADR-0065; docs/contract.md
 * "`POST /2/consent/`"): a record stored for each choice, with the
 * server's timestamp, the client's network instead of its address and the
 * page's path without its query; bad bodies refused with 400 and nothing
 * stored; the body limit, the rate limit; and `npm run consent:export`
 * printing an id's history as JSON lines.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSENT_RECORD_PATH } from '../../contract/consentRecord';
import { PROJECT_ROOT } from '../../harness/page/paths';
import { scratchDatabase } from '../../harness/page/scratchDatabase';
import { CONSENT_EXPORT_BUNDLE } from '../../scripts/buildServer';
import type { DatabaseSettings } from '../../server/db/database';
import { openServiceDatabase } from '../../server/schema';
import { MIGRATIONS } from '../../server/schema';
import { apiServer, expectApiAnswer, FORM } from './support/apiServer';
import { databaseEnv } from './support/serviceProcess';

const USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

let settings: DatabaseSettings;
let app: FastifyInstance;

beforeAll(async () => {
  settings = await scratchDatabase();
  app = await apiServer({ database: settings });
});

afterAll(async () => {
  await app.close();
});

function record(overrides: Record<string, string> = {}): URLSearchParams {
  return new URLSearchParams({
    consent_id: randomUUID(),
    choice: '1',
    revision: '1',
    source: 'modal',
    path: '/signup',
    ...overrides,
  });
}

function post(
  payload: string,
  extra: Partial<InjectOptions> = {},
  server: FastifyInstance = app,
) {
  return server.inject({
    method: 'POST',
    url: CONSENT_RECORD_PATH,
    headers: { 'content-type': FORM, 'user-agent': USER_AGENT },
    payload,
    remoteAddress: '203.0.113.57',
    ...extra,
  });
}

function rowsOf(consentId: string) {
  return app.database.db
    .selectFrom('consent_records')
    .selectAll()
    .where('consent_id', '=', consentId)
    .orderBy('id')
    .execute();
}

describe('a consent record', () => {
  it('is stored for each choice, in order, with the server’s time, the network and no query', async () => {
    const id = randomUUID();
    const before = Date.now();
    const accepted = await post(
      record({
        consent_id: id,
        path: '/signup?utm_source=google&utm_campaign=spring',
      }).toString(),
    );
    expect(accepted.statusCode).toBe(204);
    expect(accepted.body).toBe('');
    const rejected = await post(
      record({
        consent_id: id,
        choice: '0',
        source: 'settings',
        revision: '2',
      }).toString(),
    );
    expect(rejected.statusCode).toBe(204);

    const rows = await rowsOf(id);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      consent_id: id,
      choice: 'accepted',
      revision: 1,
      source: 'modal',
      path: '/signup',
      user_agent: USER_AGENT,
      ip_network: '203.0.113.0/24',
    });
    expect(rows[1]).toMatchObject({
      choice: 'rejected',
      revision: 2,
      source: 'settings',
    });
    for (const row of rows) {
      const time = new Date(row.recorded_at).getTime();
      expect(time).toBeGreaterThanOrEqual(before - 5_000);
      expect(time).toBeLessThanOrEqual(Date.now() + 5_000);
    }
  });

  it('keeps an IPv6 client’s /48', async () => {
    const id = randomUUID();
    const answer = await post(record({ consent_id: id }).toString(), {
      remoteAddress: '2001:db8:85a3:8d3:1319:8a2e:370:7348',
    });
    expect(answer.statusCode).toBe(204);
    expect(await rowsOf(id)).toMatchObject([
      { ip_network: '2001:db8:85a3::/48' },
    ]);
  });

  it('stores a rejection by the browser’s privacy signal', async () => {
    const id = randomUUID();
    const answer = await post(
      record({ consent_id: id, choice: '0', source: 'gpc' }).toString(),
    );
    expect(answer.statusCode).toBe(204);
    expect(await rowsOf(id)).toMatchObject([
      { choice: 'rejected', source: 'gpc' },
    ]);
  });
});

describe('a bad body', () => {
  it.each([
    ['a name beside the record', { name: 'Ada Lovelace' }, 'body'],
    [
      'an e-mail address beside the record',
      { email: 'ada@example.com' },
      'body',
    ],
    ['a choice that is neither 1 nor 0', { choice: 'yes' }, 'choice'],
    ['a revision of 0', { revision: '0' }, 'revision'],
    ['an unknown source', { source: 'banner' }, 'source'],
    ['an accept by the privacy signal', { source: 'gpc' }, 'source'],
    ['a consent id that is no UUID', { consent_id: 'abc' }, 'consent_id'],
    ['a path that is a full URL', { path: 'https://x.example/' }, 'path'],
  ])(
    'with %s is refused with 400 and stores nothing',
    async (_what, fields, info) => {
      const id = randomUUID();
      const body = record({ consent_id: id, ...fields });
      const answer = await post(body.toString());
      expect(answer.statusCode).toBe(400);
      expect(expectApiAnswer(answer)).toEqual({
        success: false,
        code: 'CSAPI_INVALID_PARAMETER',
        info,
      });
      expect(await rowsOf(id)).toEqual([]);
    },
  );

  it('with a field sent twice is refused with 400', async () => {
    const id = randomUUID();
    const answer = await post(
      `${record({ consent_id: id }).toString()}&choice=0`,
    );
    expect(answer.statusCode).toBe(400);
    expect(expectApiAnswer(answer)).toMatchObject({ info: 'choice' });
    expect(await rowsOf(id)).toEqual([]);
  });

  it('over 1 KiB is refused with 413, and 1 KiB is not', async () => {
    const id = randomUUID();
    const base = record({ consent_id: id }).toString();
    // A path that brings the body to exactly 1,024 bytes, then one more.
    const padding = 1024 - base.length;
    const exact = record({
      consent_id: id,
      path: `/signup${'a'.repeat(padding)}`,
    }).toString();
    expect(Buffer.byteLength(exact)).toBe(1024);
    expect((await post(exact)).statusCode).toBe(204);
    const over = await post(`${exact}a`);
    expect(over.statusCode).toBe(413);
    expect(expectApiAnswer(over)).toMatchObject({
      code: 'CSAPI_PAYLOAD_TOO_LARGE',
    });
    expect(await rowsOf(id)).toHaveLength(1);
  });

  it('as JSON is refused with 415', async () => {
    const answer = await post(JSON.stringify(Object.fromEntries(record())), {
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.statusCode).toBe(415);
    expect(expectApiAnswer(answer)).toMatchObject({
      code: 'CSAPI_UNSUPPORTED_MEDIA_TYPE',
    });
  });
});

describe('the API', () => {
  it('has no way to change or delete a record', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE', 'GET'] as const) {
      const answer = await app.inject({ method, url: CONSENT_RECORD_PATH });
      expect(answer.statusCode, method).toBe(404);
    }
  });

  it('limits the records per client address, answering 429 in its shape', async () => {
    const limited = await apiServer({ consentRateLimit: 2 });
    try {
      const from = { remoteAddress: '198.51.100.9' };
      expect((await post(record().toString(), from, limited)).statusCode).toBe(
        204,
      );
      expect((await post(record().toString(), from, limited)).statusCode).toBe(
        204,
      );
      const third = await post(record().toString(), from, limited);
      expect(third.statusCode).toBe(429);
      expect(expectApiAnswer(third)).toMatchObject({
        code: 'CSAPI_API_RATE_LIMIT_REACHED',
      });
      const other = { remoteAddress: '198.51.100.10' };
      expect((await post(record().toString(), other, limited)).statusCode).toBe(
        204,
      );
    } finally {
      await limited.close();
    }
  });
});

/**
 * Runs `npm run consent:export` as a deployment does: the built bundle
 * (the server projects' global setup builds it as `npm run build` does),
 * with plain Node and no TypeScript loader.
 *
 * @param env where the database is; default the test's database
 */
function runExport(
  args: string[],
  env: NodeJS.ProcessEnv = databaseEnv(settings),
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [CONSENT_EXPORT_BUNDLE, ...args], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

describe('npm run consent:export', () => {
  it('prints an id’s history as JSON lines, oldest first, and nothing of others', async () => {
    const id = randomUUID();
    const other = randomUUID();
    expect(
      (await post(record({ consent_id: id, path: '/signup?x=1' }).toString()))
        .statusCode,
    ).toBe(204);
    expect(
      (await post(record({ consent_id: other }).toString())).statusCode,
    ).toBe(204);
    expect(
      (
        await post(
          record({
            consent_id: id,
            choice: '0',
            source: 'settings',
          }).toString(),
        )
      ).statusCode,
    ).toBe(204);
    // The embedded database is held by one process at a time.
    await app.close();
    try {
      const run = await runExport([id.toUpperCase()]);
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      const printed = lines.map((line) => JSON.parse(line) as unknown);
      expect(printed).toEqual([
        {
          consent_id: id,
          recorded_at: expect.stringMatching(
            /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
          ) as unknown,
          choice: 'accepted',
          revision: 1,
          source: 'modal',
          path: '/signup',
          user_agent: USER_AGENT,
          ip_network: '203.0.113.0/24',
        },
        expect.objectContaining({ choice: 'rejected', source: 'settings' }),
      ]);

      const none = await runExport([randomUUID()]);
      expect(none).toMatchObject({ code: 1, stdout: '' });
      const usage = await runExport(['not-an-id']);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('Usage: npm run consent:export');
    } finally {
      app = await apiServer({ database: settings });
    }
  });

  it('answers 2, naming the directory, for a DATA_DIR that holds no database, and creates none', async () => {
    const dataDir = join(
      mkdtempSync(join(tmpdir(), 'vigil-export-')),
      'no-data-here',
    );
    const run = await runExport([randomUUID()], { DATA_DIR: dataDir });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`No database in ${dataDir}`);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('opens the database read-only: it applies no migration', async () => {
    // A database the service never ran on: initialised, no tables.
    const fresh = await scratchDatabase();
    const run = await runExport([randomUUID()], databaseEnv(fresh));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/consent_records/);
    // The service's first start still finds every migration to apply.
    const logged: string[] = [];
    const database = await openServiceDatabase(fresh, (line) =>
      logged.push(line),
    );
    await database.close();
    expect(logged).toContainEqual(
      `Applied migrations: ${Object.keys(MIGRATIONS).join(', ')}`,
    );
  });
});
