/**
 * The monitor survives a SIGKILL in the middle of a pass (issue 45): the
 * built service as a process (`npm run serve`), on the run's engine, its
 * checks every 5 s (`MONITOR_INTERVAL_SECONDS`'s least), its site names
 * pinned to 127.0.0.1 by `MONITOR_RESOLVE` (never resolved), its alerts to
 * a real SMTP server of the test's own. Killed while its checks of three
 * sites hang, then started again: every site is checked again, and each
 * address gets exactly one "down" and one "back up" mail.
 *
 * The intervals are the service's real ones (5 s): a process cannot take
 * the test's clock. Every wait is for an event (a request, a mail).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_UP_PATH } from '../../../contract/signUp';
import { openServiceDatabase } from '../../../server/schema';
import { scratchDatabase } from '../../../harness/page/scratchDatabase';
import { FORM, validSignUp } from '../support/apiServer';
import { linkOf } from '../support/mailService';
import {
  databaseEnv,
  startService,
  type ServiceProcess,
} from '../support/serviceProcess';
import { startSmtpSink, type SmtpSink } from '../../../harness/mail/smtpSink';
import {
  startSwitchableSite,
  type SwitchableSite,
} from '../../../harness/monitor/monitorService';

const SITES = [1, 2, 3];

let sink: SmtpSink;
let site: SwitchableSite;
const running = new Set<ServiceProcess>();

beforeAll(async () => {
  sink = await startSmtpSink();
  site = await startSwitchableSite();
});

afterAll(async () => {
  for (const service of running) process.kill(service.pid, 'SIGKILL');
  await site.close();
  await sink.stop();
});

/** The mails the sink received for an address, in order. */
const mailsTo = (email: string) =>
  sink.messages.filter((mail) =>
    [mail.to ?? []]
      .flat()
      .some((to) =>
        to.value.some(
          (box) => box.address?.toLowerCase() === email.toLowerCase(),
        ),
      ),
  );

/** Their subjects. */
const subjectsTo = (email: string) =>
  mailsTo(email).map((mail) => mail.subject ?? '');

describe('a SIGKILL in the middle of a pass', () => {
  it('checks every site again after the restart, and loses or doubles no alert', async () => {
    const settings = await scratchDatabase();
    const env = {
      ...databaseEnv(settings),
      MONITOR: 'on',
      MONITOR_INTERVAL_SECONDS: '5',
      MONITOR_RESOLVE: 'site.test=127.0.0.1',
      MONITOR_ALLOWED_NETWORKS: '127.0.0.0/8',
      SMTP_URL: sink.url,
      MAIL_FROM: 'alerts@vigil.example',
    };
    let service = await startService(env);
    running.add(service);
    // What the start logged may still be in the pipe when /healthz answers.
    await expect
      .poll(() => service.output)
      .toContain('Checks: every 5 s, up to 50 at once');
    await expect
      .poll(() => service.output.join('\n'))
      .toMatch(/Warning: MONITOR_ALLOWED_NETWORKS is set/);

    // Three confirmed accounts, each watching its own path of the site.
    const emails: string[] = [];
    for (const n of SITES) {
      const body = validSignUp({ url: site.url(n) });
      const answer = await fetch(`${service.origin}${SIGN_UP_PATH}`, {
        method: 'POST',
        headers: { 'content-type': FORM },
        body,
      });
      expect(answer.status).toBe(200);
      emails.push(body.get('email') ?? '');
    }
    for (const email of emails) {
      await expect
        .poll(() => subjectsTo(email).length, { timeout: 30_000 })
        .toBe(1);
      const [mail] = mailsTo(email);
      const token = mail ? (linkOf(mail).searchParams.get('token') ?? '') : '';
      const confirmed = await fetch(`${service.origin}/link`, {
        method: 'POST',
        headers: { 'content-type': FORM },
        body: new URLSearchParams({ token }),
        redirect: 'manual',
      });
      expect(confirmed.status).toBe(200);
    }
    // Each site's first check ran within seconds of its sign-up.
    for (const n of SITES) {
      await expect
        .poll(() => site.hits(n), { timeout: 15_000 })
        .toBeGreaterThan(0);
    }

    // Down: two failed checks in a row, then one alert each.
    for (const n of SITES) site.set(n, 'fail');
    for (const email of emails) {
      await expect
        .poll(() => subjectsTo(email).filter((s) => s.startsWith('Down: ')), {
          timeout: 30_000,
        })
        .toHaveLength(1);
    }

    // Killed while every site's check hangs.
    const hung = SITES.map((n) => site.hits(n));
    for (const n of SITES) site.set(n, 'hang');
    for (const [index, n] of SITES.entries()) {
      await expect
        .poll(() => site.hits(n), { timeout: 30_000 })
        .toBeGreaterThan(hung[index] ?? 0);
    }
    process.kill(service.pid, 'SIGKILL');
    expect((await service.exited).signal).toBe('SIGKILL');
    running.delete(service);
    if (settings.engine === 'postgres') {
      // The killed instance's claims end with their lease (a minute): the
      // lease is the clock the test holds, so it ends now.
      const database = await openServiceDatabase(settings);
      try {
        await database.db
          .updateTable('monitors')
          .set({ lease_until: null })
          .execute();
      } finally {
        await database.close();
      }
    }

    // Back up, and started again: every site checked again, one "back up"
    // mail each.
    for (const n of SITES) site.set(n, 'up');
    const killedAt = SITES.map((n) => site.hits(n));
    service = await startService(env);
    running.add(service);
    for (const [index, n] of SITES.entries()) {
      await expect
        .poll(() => site.hits(n), { timeout: 30_000 })
        .toBeGreaterThan(killedAt[index] ?? 0);
    }
    for (const email of emails) {
      await expect
        .poll(
          () => subjectsTo(email).filter((s) => s.startsWith('Back up: ')),
          {
            timeout: 30_000,
          },
        )
        .toHaveLength(1);
    }
    // Another whole interval later, still one of each.
    const settled = SITES.map((n) => site.hits(n));
    for (const [index, n] of SITES.entries()) {
      await expect
        .poll(() => site.hits(n), { timeout: 30_000 })
        .toBeGreaterThan(settled[index] ?? 0);
    }
    for (const email of emails) {
      const alerts = subjectsTo(email).filter((s) =>
        /^(Down|Back up): /.test(s),
      );
      expect(alerts.map((s) => s.replace(/: .*$/, ''))).toEqual([
        'Down',
        'Back up',
      ]);
    }
    process.kill(service.pid, 'SIGTERM');
    expect((await service.exited).code).toBe(0);
    running.delete(service);
  });
});
