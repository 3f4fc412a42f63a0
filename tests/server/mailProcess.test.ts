/**
 * Mail from the built service as a process (`npm run serve`), on the run's
 * engine, to a real SMTP server of the test's own (issue 37; ADR-0095,
 * ADR-0100):
 *
 * - SMTP down, with a SIGKILL and a restart in the middle, after
 *   acknowledged sign-ups: once SMTP answers, every mail arrives, once.
 *   The outage lasts at least what the project provides (`smtpOutageMs`
 *   in vitest.config.ts: the 30 s in `npm run test:engines`, 3 s
 *   in `npm test`), and until the last sign-up: every mail's first
 *   attempt meets a closed port and waits for the production backoff;
 * - a 5xx refusal is logged without the address, and no log line carries
 *   an address, a name, a token or a link;
 * - without `SMTP_URL`, the start says where mail goes, nothing claims to
 *   have sent it, and `npm run mail` shows the link;
 * - an unusable mail configuration stops the service, naming its variable.
 *
 * The outage is the one deliberate wait: it is the scenario.
 * Everything else waits for an event (a mail's arrival, an exit).
 */
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SIGN_UP_PATH } from '../../contract/signUp';
import { MAIL_COMMAND_BUNDLE } from '../../scripts/buildServer';
import type { DatabaseSettings } from '../../server/db/database';
import { openServiceDatabase } from '../../server/schema';
import { scratchDatabase } from '../../harness/page/scratchDatabase';
import { PROJECT_ROOT } from '../../harness/page/paths';
import { FORM, validSignUp } from './support/apiServer';
import { linkOf } from './support/mailService';
import {
  databaseEnv,
  startService,
  type ServiceProcess,
} from './support/serviceProcess';
import { startSmtpSink, type SmtpSink } from '../../harness/mail/smtpSink';

declare module 'vitest' {
  export interface ProvidedContext {
    /** How long this project's SMTP outage lasts, in milliseconds. */
    smtpOutageMs: number;
  }
}

/** The outage's length in ms (vitest.config.ts: `SMTP_OUTAGE`). */
const OUTAGE_MS = inject('smtpOutageMs');

const PUBLIC_URL = 'https://vigil.example';
const PUBLIC_HOST = new URL(PUBLIC_URL).host;

let sink: SmtpSink;
const running = new Set<ServiceProcess>();

beforeAll(async () => {
  sink = await startSmtpSink();
});

afterAll(async () => {
  for (const service of running) process.kill(service.pid, 'SIGKILL');
  await sink.stop();
});

async function start(env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const service = await startService(env);
  running.add(service);
  return service;
}

async function stop(service: ServiceProcess, signal: NodeJS.Signals) {
  process.kill(service.pid, signal);
  const exit = await service.exited;
  running.delete(service);
  return exit;
}

/**
 * Signs up, as the proxy in front of the service forwards it: with
 * `PUBLIC_URL`'s host in `Host`, the one host the service answers (ADR-0109).
 *
 * @param host `PUBLIC_URL`'s host (default: the service's own origin's,
 *   its development default)
 * @returns the address, once the service has acknowledged it
 */
async function signUp(origin: string, host = new URL(origin).host) {
  const body = validSignUp().toString();
  const status = await new Promise<number>((resolveStatus, reject) => {
    const outgoing = request(
      `${origin}${SIGN_UP_PATH}`,
      {
        method: 'POST',
        headers: {
          'content-type': FORM,
          'content-length': Buffer.byteLength(body),
          host,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolveStatus(response.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
  expect(status).toBe(200);
  return new URLSearchParams(body).get('email') ?? '';
}

const recipients = (from: number) =>
  sink.messages
    .slice(from)
    .flatMap((mail) => [mail.to ?? []].flat())
    .flatMap((to) => to.value.map((box) => box.address ?? ''));

/**
 * Outbox rows as they are once every service on the database has exited.
 * A lease a killed sender held ends now: `lease_until` is the clock the
 * test controls, instead of waiting out the 5 minutes.
 */
async function withDatabase<T>(
  settings: DatabaseSettings,
  run: (
    db: Awaited<ReturnType<typeof openServiceDatabase>>['db'],
  ) => Promise<T>,
): Promise<T> {
  const database = await openServiceDatabase(settings);
  try {
    return await run(database.db);
  } finally {
    await database.close();
  }
}

describe(`SMTP down for ${OUTAGE_MS / 1000} s, with a SIGKILL and a restart in the middle`, () => {
  it('delivers every acknowledged sign-up’s mail once SMTP answers, each once, and logs no address', async () => {
    const settings = await scratchDatabase();
    const env = {
      ...databaseEnv(settings),
      SMTP_URL: sink.url,
      MAIL_FROM: 'no-reply@vigil.example',
      PUBLIC_URL,
    };
    const from = sink.messages.length;
    await sink.down();
    const down = Date.now();
    let service = await start(env);
    const emails: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      emails.push(await signUp(service.origin, PUBLIC_HOST));
    }
    const killed = await stop(service, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const logs = [...service.output];
    if (settings.engine === 'postgres') {
      // A mail the killed sender had claimed waits for its lease to end.
      await withDatabase(settings, (db) =>
        db
          .updateTable('deliveries')
          .set({ lease_until: new Date() })
          .where('state', '=', 'sending')
          .execute(),
      );
    }
    service = await start(env);
    for (let index = 0; index < 5; index += 1) {
      emails.push(await signUp(service.origin, PUBLIC_HOST));
    }
    // A refusal for good, to see what the log says of it.
    const refused = await signUp(service.origin, PUBLIC_HOST);
    sink.rejectRecipient(refused, 550);
    const left = OUTAGE_MS - (Date.now() - down);
    if (left > 0) await new Promise((wait) => setTimeout(wait, left));
    await sink.up();
    await sink.waitForMessages(from + emails.length);
    // The refused mail's own retry may come after the others arrived (each
    // retry's delay is jittered): its refusal is an event to wait for too.
    await expect
      .poll(
        () => service.output.some((line) => /delivery given up/.test(line)),
        { timeout: 60_000 },
      )
      .toBe(true);
    expect(await stop(service, 'SIGTERM')).toEqual({ code: 0, signal: null });
    logs.push(...service.output);

    expect(recipients(from).sort()).toEqual([...emails].sort());
    const rows = await withDatabase(settings, (db) =>
      db
        .selectFrom('deliveries')
        .select(['target', 'state', 'last_error'])
        .execute(),
    );
    expect(rows.filter((row) => row.state === 'sent')).toHaveLength(10);
    expect(rows.find((row) => row.target === refused)).toMatchObject({
      state: 'dead',
      last_error: expect.stringMatching(/^550 RCPT TO/) as string,
    });
    expect(logs).toContainEqual(
      expect.stringMatching(
        /"delivery":\{"id":"\d+","kind":"account\.confirm".*delivery given up/,
      ),
    );
    const personal = [
      ...emails,
      refused,
      'Ada Lovelace',
      ...sink.messages
        .slice(from)
        .map((mail) => linkOf(mail).searchParams.get('token') ?? ''),
      `${PUBLIC_URL}/link`,
    ];
    expect(
      logs.filter((line) => personal.some((secret) => line.includes(secret))),
    ).toEqual([]);
  });
});

describe('without SMTP_URL', () => {
  it('says at start where mail goes, writes each mail to a file only its owner reads, and npm run mail shows the link', async () => {
    const settings = await scratchDatabase();
    const service = await start(databaseEnv(settings));
    // What the start logged may still be in the pipe when /healthz answers
    // (behind the start's warnings, on a busy machine): the limit is for a
    // hang, not a timing.
    await expect
      .poll(() => service.output.some((line) => line.startsWith('Mail: ')), {
        timeout: 15_000,
      })
      .toBe(true);
    const dataDir =
      settings.engine === 'pglite'
        ? settings.dataDir
        : /written to (\S+)\/mail\./.exec(service.output.join('\n'))?.[1];
    expect(service.output).toContainEqual(
      `Mail: not sent (SMTP_URL is not set); each mail is written to ${dataDir}/mail. Read the newest with: npm run mail`,
    );
    const email = await signUp(service.origin);
    await stop(service, 'SIGTERM');
    expect(service.output.join('\n')).not.toMatch(/"via":"smtp"/);
    const dir = join(dataDir ?? '', 'mail');
    const files = readdirSync(dir).sort();
    expect(files.map((name) => name.replace(/^.*\./, ''))).toEqual([
      'eml',
      'txt',
    ]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const name of files) {
      expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    }
    const eml = readFileSync(join(dir, files[0] ?? ''), 'utf8');
    expect(eml).toMatch(/^Auto-Submitted: auto-generated$/m);
    expect(eml).toContain(`To: ${email}`);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [MAIL_COMMAND_BUNDLE],
      { cwd: PROJECT_ROOT, env: { ...process.env, DATA_DIR: dataDir } },
    );
    expect(stdout).toContain(`To: ${email}`);
    expect(stdout).toMatch(
      /http:\/\/localhost:\d+\/link\?token=[A-Za-z0-9_-]{43}/,
    );
  });
});

describe('a mail configuration that cannot work', () => {
  it.each<[Record<string, string>, RegExp]>([
    [
      { SMTP_URL: 'http://mailer:s3cret@smtp.example' },
      /SMTP_URL must be an smtp:\/\/ or smtps:\/\//,
    ],
    [
      { SMTP_URL: 'smtp://smtp.example' },
      /SMTP_URL is set but MAIL_FROM is not/,
    ],
    [
      { DKIM_DOMAIN: 'vigil.example' },
      /DKIM_SELECTOR and DKIM_PRIVATE_KEY are not set/,
    ],
  ])('%j stops the service, naming the variable', async (env, message) => {
    const service = await startService(
      {
        ...env,
        MAIL_FROM: env.SMTP_URL?.startsWith('http') ? 'a@b.example' : '',
      },
      { waitReady: false },
    );
    expect(await service.exited).toEqual({ code: 1, signal: null });
    const output = service.output.join('\n');
    expect(output).toMatch(message);
    expect(output).not.toContain('s3cret');
  });
});
