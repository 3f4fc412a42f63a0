/**
 * The outbox worker's marks and lease, and the file transport's retention,
 * as issue 46 asked of the mail sender and issue 60 of every delivery
 * (ADR-0095, ADR-0089, ADR-0129):
 *
 * - a mark that fails for one delivery leaves the others marked sent (one
 *   left `sending` goes out again after the lease);
 * - the lease outlasts the longest send nodemailer's timeouts allow, and no
 *   send starts that could not finish and be marked within it;
 * - the file transport's mails are deleted after 7 days, as the outbox's
 *   copies are, and nothing else in their directory.
 *
 * The outbox's repository is a fake (the test decides which mark fails);
 * mails go to the file transport in a scratch directory.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  ClaimedDelivery,
  DeliveriesRepository,
  SentCopy,
} from '../../server/outbox/deliveries';
import { DELIVERY_LEASE_MS, deliverer } from '../../server/outbox/deliverer';
import type { Notice } from '../../server/outbox/notice';
import {
  deleteOldMailFiles,
  openMailTransport,
  SMTP_TIMEOUTS,
} from '../../server/outbox/index';

const DAY_MS = 24 * 60 * 60 * 1000;
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0))
    rmSync(dir, { recursive: true, force: true });
});

function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-mail-settle-'));
  dirs.push(dir);
  return dir;
}

/** A log line as the sender wrote it. */
interface Line {
  level: string;
  fields: unknown;
  message: unknown;
}

/** A logger that keeps its lines. */
function recordingLog(lines: Line[]): FastifyBaseLogger {
  const at =
    (level: string) =>
    (fields: unknown, message?: unknown): void => {
      lines.push({ level, fields, message });
    };
  const log: FastifyBaseLogger = {
    level: 'info',
    fatal: at('fatal'),
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    silent: at('silent'),
    child: () => log,
  };
  return log;
}

/** A mark as the fake repository received it. */
interface Mark {
  id: string;
  copy: SentCopy | undefined;
}

/**
 * A repository whose one claim returns `deliveries`, and whose `markSent`
 * throws when `refuse` says so for any delivery in it; `onClaim` runs
 * after the claim (a slow statement, on the test's clock).
 */
function fakeRepository(
  deliveries: readonly ClaimedDelivery[],
  refuse: (mark: Mark) => boolean,
  onClaim: () => void = () => undefined,
) {
  const marked: Mark[] = [];
  const released: string[] = [];
  let claimed = false;
  const repository: DeliveriesRepository = {
    onDead: () => undefined,
    onSent: () => undefined,
    claim: () => {
      const batch = claimed ? [] : [...deliveries];
      claimed = true;
      onClaim();
      return Promise.resolve(batch);
    },
    markSent: (batch) => {
      const marks = batch.map(({ delivery, copy }) => ({
        id: delivery.id,
        copy,
      }));
      if (marks.some(refuse)) {
        return Promise.reject(new Error('the mark failed'));
      }
      marked.push(...marks);
      return Promise.resolve(false);
    },
    markFailed: () => Promise.resolve('pending'),
    reclaimExpired: () => Promise.resolve(0),
    refreshStatistics: () => Promise.resolve(),
    release: (given) => {
      released.push(...given.map((delivery) => delivery.id));
      return Promise.resolve();
    },
    retryNow: () => Promise.resolve(),
    dropOldCopies: () => Promise.resolve(0),
    deleteOld: () => Promise.resolve(0),
  };
  return { repository, marked, released };
}

function claimedMail(id: string): ClaimedDelivery {
  return {
    id,
    kind: 'test.mail',
    channel: 'email',
    accountId: `account-${id}`,
    channelId: null,
    target: `person-${id}@example.com`,
    secret: null,
    payload: {},
    attempts: 1,
    createdAt: new Date('2026-01-02T03:04:05.000Z'),
    deadlineAt: new Date('2026-01-05T03:04:05.000Z'),
  };
}

/** Every delivery of the test's kind says the same. */
const NOTICE: Notice = {
  subject: 'A test',
  paragraphs: ['It says hello.'],
  urgency: 'default',
  tags: [],
  webhook: null,
};

/** A worker over `repository` writing its mails into `dir`. */
function fileWorker(
  repository: DeliveriesRepository,
  dir: string,
  lines: Line[],
  clock?: () => number,
) {
  return deliverer(repository, {
    productName: 'Vigil',
    publicUrl: 'https://vigil.example',
    mailFrom: 'no-reply@vigil.example',
    mail: openMailTransport({ kind: 'file', dir }),
    post: () => () => Promise.reject(new Error('no POST in this test')),
    renderers: new Map([
      [
        'test.mail',
        (deliveries: readonly ClaimedDelivery[]) =>
          Promise.resolve(new Map(deliveries.map((d) => [d.id, NOTICE]))),
      ],
    ]),
    pollMs: 60_000,
    embedded: true,
    log: recordingLog(lines),
    ...(clock && { clock }),
  });
}

const mailFiles = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir).filter((name) => name.endsWith('.eml'))
    : [];

describe('marking sent deliveries (issue 46)', () => {
  it('a mark that fails for one delivery leaves the others marked sent, and logs that one by id', async () => {
    const dir = scratchDir();
    const lines: Line[] = [];
    const fake = fakeRepository(
      ['1', '2', '3'].map(claimedMail),
      (mark) => mark.id === '2',
    );
    const worker = fileWorker(fake.repository, dir, lines);
    await worker.drain();
    await worker.stop();
    expect(mailFiles(dir)).toHaveLength(3);
    expect(fake.marked.map((mark) => mark.id).sort()).toEqual(['1', '3']);
    for (const mark of fake.marked) expect(mark.copy?.text).toContain('Hello,');
    const failed = lines.filter(
      (line) =>
        line.level === 'error' && JSON.stringify(line.fields).includes('"2"'),
    );
    expect(failed).toHaveLength(1);
    // Named by id and kind, never by address.
    expect(JSON.stringify(lines)).not.toContain('@example.com');
  });

  it('a delivery whose copy cannot be stored is marked sent without it', async () => {
    const dir = scratchDir();
    const fake = fakeRepository(
      ['4', '5'].map(claimedMail),
      (mark) => mark.id === '5' && mark.copy !== undefined,
    );
    const worker = fileWorker(fake.repository, dir, []);
    await worker.drain();
    await worker.stop();
    expect(
      fake.marked
        .map((mark) => [mark.id, mark.copy === undefined])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    ).toEqual([
      ['4', false],
      ['5', true],
    ]);
  });
});

describe('the lease (issue 46)', () => {
  it('outlasts the longest send nodemailer’s timeouts allow (the setup, then 10 replies), plus a margin', () => {
    const longestSend =
      SMTP_TIMEOUTS.connectionTimeout + 10 * SMTP_TIMEOUTS.socketTimeout;
    expect(DELIVERY_LEASE_MS).toBeGreaterThan(longestSend + 30_000);
  });

  it('no send starts once too little of its lease is left: its deliveries go back to the queue', async () => {
    const dir = scratchDir();
    let now = 0;
    // The claim's statement takes the start window and more.
    const fake = fakeRepository(
      ['6', '7'].map(claimedMail),
      () => false,
      () => {
        now += DELIVERY_LEASE_MS - 300_000;
      },
    );
    const worker = fileWorker(fake.repository, dir, [], () => now);
    await worker.drain();
    await worker.stop();
    expect(mailFiles(dir)).toEqual([]);
    expect(fake.marked).toEqual([]);
    expect(fake.released.sort()).toEqual(['6', '7']);
  });
});

describe('the file transport’s mails (issue 46; ADR-0089)', () => {
  /** Writes a file last modified `ageMs` ago. */
  function file(path: string, ageMs: number): void {
    writeFileSync(path, 'To: someone@example.com\n');
    const at = new Date(Date.now() - ageMs);
    utimesSync(path, at, at);
  }
  const MAIL = '2026-01-02T03-04-05-678Z-vigil-12-1767323045678';

  it('are deleted after 7 days, and nothing else in their directory', async () => {
    const dir = scratchDir();
    const outside = scratchDir();
    file(join(dir, `${MAIL}.eml`), 8 * DAY_MS);
    file(join(dir, `${MAIL}.txt`), 8 * DAY_MS);
    const recent = '2026-01-03T03-04-05-678Z-vigil-13-1767409445678';
    file(join(dir, `${recent}.eml`), 6 * DAY_MS);
    file(join(dir, `${recent}.txt`), 6 * DAY_MS);
    file(join(dir, 'notes.txt'), 30 * DAY_MS);
    // A link named like a mail, to a file elsewhere: neither is deleted.
    file(join(outside, 'kept.txt'), 30 * DAY_MS);
    const linked = '2026-01-01T00-00-00-000Z-vigil-1-1767225600000.txt';
    symlinkSync(join(outside, 'kept.txt'), join(dir, linked));
    mkdirSync(join(dir, '2026-01-01T00-00-00-000Z-vigil-2-1.eml'));

    expect(await deleteOldMailFiles(dir)).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(
      [
        `${recent}.eml`,
        `${recent}.txt`,
        '2026-01-01T00-00-00-000Z-vigil-2-1.eml',
        linked,
        'notes.txt',
      ].sort(),
    );
    expect(existsSync(join(outside, 'kept.txt'))).toBe(true);
  });

  it('are deleted a limited number at a time, the next call going on', async () => {
    const dir = scratchDir();
    for (let index = 0; index < 5; index += 1) {
      file(
        join(dir, `2026-01-02T03-04-05-67${index}Z-vigil-${index}-1.eml`),
        8 * DAY_MS,
      );
    }
    expect(await deleteOldMailFiles(dir, { limit: 2 })).toBe(2);
    expect(readdirSync(dir)).toHaveLength(3);
    expect(await deleteOldMailFiles(dir, { limit: 2 })).toBe(2);
    expect(await deleteOldMailFiles(dir, { limit: 2 })).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a missing directory is nothing to delete', async () => {
    expect(await deleteOldMailFiles(join(scratchDir(), 'mail'))).toBe(0);
  });

  it('are the file transport’s housekeeping, and SMTP has none', async () => {
    const dir = scratchDir();
    file(join(dir, `${MAIL}.eml`), 8 * DAY_MS);
    const files = openMailTransport({ kind: 'file', dir });
    expect(files.housekeeping.map(([what]) => what)).toEqual([
      'mail files past 7 days',
    ]);
    for (const [, run] of files.housekeeping) await run();
    expect(readdirSync(dir)).toEqual([]);
    files.close();
    const smtp = openMailTransport({
      kind: 'smtp',
      url: 'smtp://127.0.0.1:9',
    });
    expect(smtp.housekeeping).toEqual([]);
    smtp.close();
  });
});
