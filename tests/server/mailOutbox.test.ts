/**
 * Mail that leaves, through a real SMTP server (smtp-server on loopback,
 * read with mailparser): one confirmation mail per sign-up, made as issue
 * 37 asks (multipart, named after the product, `Auto-Submitted`, no remote
 * resource, links only on `PUBLIC_URL`); 4xx replies retried, a 5xx reply
 * to the recipient final and stored without the address; copies dropped
 * after 7 days (ADR-0089, ADR-0095, ADR-0101).
 */
import { generateKeyPairSync } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_UP_PATH } from '../../contract/signUp';
import { FORM, validSignUp } from './support/apiServer';
import {
  askSignIn as askSignInOf,
  linkOf,
  type MailService,
  postForm,
  PUBLIC_URL,
  startMailService,
  tokenOf,
} from './support/mailService';

let service: MailService;

beforeAll(async () => {
  service = await startMailService();
});

afterAll(() => service.close());

async function signUp(
  fields: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const body = validSignUp(fields);
  const answer = await service.app.inject({
    method: 'POST',
    url: SIGN_UP_PATH,
    headers: { 'content-type': FORM, ...headers },
    payload: body.toString(),
  });
  return { answer, email: body.get('email') ?? '' };
}

const outboxRow = (email: string) =>
  service.app.database.db
    .selectFrom('deliveries')
    .selectAll()
    .where(sql`lower(target)`, '=', email.toLowerCase())
    .executeTakeFirstOrThrow();

describe('the confirmation mail of a sign-up', () => {
  it('arrives once per sign-up, each to its own address, with its own Message-ID', async () => {
    const before = service.sink.messages.length;
    const emails = [];
    for (let index = 0; index < 20; index += 1) {
      const { answer, email } = await signUp();
      expect(answer.statusCode).toBe(200);
      emails.push(email);
    }
    await service.sink.waitForMessages(before + 20);
    await service.drain();
    for (const email of emails) {
      expect(service.mailsTo(email), email).toHaveLength(1);
    }
    const ids = service.sink.messages
      .slice(before)
      .map((mail) => mail.messageId);
    expect(new Set(ids).size).toBe(20);
  });

  it('is not sent to an address already in use', async () => {
    const { email } = await signUp();
    await service.drain();
    const { answer } = await signUp({ email: email.toUpperCase() });
    expect(answer.statusCode).toBe(409);
    await service.drain();
    expect(service.mailsTo(email)).toHaveLength(1);
  });

  it('is multipart text and HTML, from the product, auto-generated, with no remote resource and its one link on PUBLIC_URL', async () => {
    const { answer, email } = await signUp({ name: 'Ada "Q" O’Brien & Søn' });
    expect(answer.statusCode).toBe(200);
    await service.drain();
    const [mail] = service.mailsTo(email);
    if (!mail) throw new Error('no mail');
    expect(mail.subject).toContain('Vigil');
    expect(mail.from?.value[0]).toEqual({
      name: 'Vigil',
      address: 'no-reply@vigil.example',
    });
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    const html = typeof mail.html === 'string' ? mail.html : '';
    expect(html).not.toMatch(/<img|<link|<script|url\(|src=/i);
    for (const url of `${mail.text ?? ''} ${html}`.match(
      /https?:\/\/[^\s"'<>]+/g,
    ) ?? []) {
      expect(url.startsWith(`${PUBLIC_URL}/`), url).toBe(true);
    }
    const link = linkOf(mail);
    expect(link.pathname).toBe('/link');
    expect(link.searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('builds its link on PUBLIC_URL, never on Host or X-Forwarded-Host, and answers no other host (ADR-0109)', async () => {
    const forwarded = await startMailService({ trustProxy: true });
    try {
      const post = (headers: Record<string, string>, body = validSignUp()) =>
        forwarded.app.inject({
          method: 'POST',
          url: SIGN_UP_PATH,
          headers: { 'content-type': FORM, ...headers },
          payload: body.toString(),
        });
      // Another host, named directly or by a trusted proxy: refused
      // before anything is queued.
      const elsewhere: Record<string, string>[] = [
        { host: 'evil.example' },
        { 'x-forwarded-host': 'evil.example' },
      ];
      for (const headers of elsewhere) {
        const refused = validSignUp();
        expect((await post(headers, refused)).statusCode).toBe(421);
        await forwarded.drain();
        expect(forwarded.mailsTo(refused.get('email') ?? '')).toEqual([]);
      }
      // Its own host on another port and in another case: the link is
      // still PUBLIC_URL's.
      const body = validSignUp();
      const answer = await post({ host: 'VIGIL.example:8443' }, body);
      expect(answer.statusCode).toBe(200);
      await forwarded.drain();
      const [mail] = forwarded.mailsTo(body.get('email') ?? '');
      if (!mail) throw new Error('no mail');
      expect(linkOf(mail).origin).toBe(PUBLIC_URL);
      expect(`${mail.text ?? ''}${String(mail.html)}`).not.toContain('8443');
    } finally {
      await forwarded.close();
    }
  });

  it('keeps a copy without the token, and the database holds no token in clear', async () => {
    const { email } = await signUp();
    await service.drain();
    const [mail] = service.mailsTo(email);
    if (!mail) throw new Error('no mail');
    const token = linkOf(mail).searchParams.get('token') ?? '';
    const row = await outboxRow(email);
    expect(row).toMatchObject({
      state: 'sent',
      attempts: 1,
      delivered_via: 'smtp',
      last_error: null,
    });
    expect(row.text_body).toContain(`${PUBLIC_URL}/link?token=`);
    const dump = await sql<{ dump: string }>`
      select (select string_agg(o::text, ' ') from deliveries o) ||
             (select string_agg(l::text, ' ') from link_tokens l) as dump`.execute(
      service.app.database.db,
    );
    expect(dump.rows[0]?.dump).toContain(row.id);
    expect(dump.rows[0]?.dump).not.toContain(token);
  });
});

describe('the name typed at sign-up, in mails to an address nobody has proven (issue 46)', () => {
  /** Asks for a sign-in link at `/signin`, as the page's form does. */
  const askSignIn = (email: string, remoteAddress: string) =>
    askSignInOf(service.app, email, remoteAddress);
  /** Moves the mail limits' clock on (their windows end sooner). */
  const advanceLimits = (seconds: number) =>
    sql`update rate_limit_windows
           set window_ends_at = window_ends_at - make_interval(secs => ${seconds})`.execute(
      service.app.database.db,
    );
  /** Every part of a mail a reader sees, and the copy the outbox keeps. */
  const partsOf = (mail: { text?: string; html?: string | false }) =>
    `${mail.text ?? ''}\n${typeof mail.html === 'string' ? mail.html : ''}`;
  const NAME = 'Claim your prize today';

  it('a confirmation mail greets “Hello,” and holds none of the name', async () => {
    const { answer, email } = await signUp({ name: NAME });
    expect(answer.statusCode).toBe(200);
    await service.drain();
    const [mail] = service.mailsTo(email);
    if (!mail) throw new Error('no mail');
    expect(mail.text?.split('\n')[0]).toBe('Hello,');
    expect(partsOf(mail)).not.toContain(NAME);
    expect((await outboxRow(email)).text_body).not.toContain(NAME);
  });

  it('a sign-in link to an unconfirmed account holds none of it; once a link proves the address, mails greet by name', async () => {
    const { email } = await signUp({ name: NAME });
    await service.drain();
    const [confirmation] = service.mailsTo(email);
    if (!confirmation) throw new Error('no confirmation mail');
    await askSignIn(email, '203.0.113.71');
    await service.drain();
    const signIn = service.mailsTo(email)[1];
    if (!signIn) throw new Error('no sign-in mail');
    expect(signIn.subject).toContain('sign-in link');
    expect(signIn.text?.split('\n')[0]).toBe('Hello,');
    expect(partsOf(signIn)).not.toContain(NAME);

    const confirmed = await postForm(service.app, '/link', {
      token: tokenOf(confirmation),
    });
    expect(confirmed.statusCode).toBe(200);
    await advanceLimits(24 * 60 * 60);
    await askSignIn(email, '203.0.113.72');
    await service.drain();
    const named = service.mailsTo(email)[2];
    if (!named) throw new Error('no sign-in mail after the confirmation');
    expect(named.text?.split('\n')[0]).toBe(`Hello ${NAME},`);
  });

  it('an alert to an unconfirmed account holds none of it either', async () => {
    const { email } = await signUp({ name: NAME });
    await service.drain();
    const db = service.app.database.db;
    const account = await db
      .selectFrom('accounts')
      .select(['id', 'confirmed_at'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(account.confirmed_at).toBeNull();
    await db
      .insertInto('deliveries')
      .values({
        kind: 'site.down',
        channel: 'email',
        account_id: account.id,
        target: email,
        stream: 'site:1|owner',
        payload: JSON.stringify({
          siteUrl: 'https://shop.example/',
          startedAt: '2026-11-29T14:02:10.000Z',
          reason: { code: 'status', status: 503 },
        }),
        deadline_at: sql<Date>`now() + interval '1 hour'`,
      })
      .execute();
    await service.drain();
    const alert = service
      .mailsTo(email)
      .find((mail) => mail.subject?.startsWith('Down: '));
    if (!alert) throw new Error('no alert');
    expect(alert.text?.split('\n')[0]).toBe('Hello,');
    expect(partsOf(alert)).not.toContain(NAME);
  });
});

describe('DKIM (DKIM_DOMAIN, DKIM_SELECTOR, DKIM_PRIVATE_KEY)', () => {
  it('signs each mail for the configured domain and selector', async () => {
    const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const signed = await startMailService(
      {},
      {
        dkim: {
          domainName: 'vigil.example',
          keySelector: 'mail2026',
          privateKey,
        },
      },
    );
    try {
      const body = validSignUp();
      await signed.app.inject({
        method: 'POST',
        url: SIGN_UP_PATH,
        headers: { 'content-type': FORM },
        payload: body.toString(),
      });
      await signed.drain();
      const [mail] = signed.mailsTo(body.get('email') ?? '');
      const signature =
        mail?.headerLines.find((line) => line.key === 'dkim-signature')?.line ??
        '';
      expect(signature).toMatch(/\bd=vigil\.example;/);
      expect(signature).toMatch(/\bs=mail2026;/);
    } finally {
      await signed.close();
    }
  });
});

describe('a refused send', () => {
  it('is retried after a 4xx reply until the server accepts it', async () => {
    // The poll stays a minute: the sender looks again at its own retry.
    const retrying = await startMailService();
    try {
      const body = validSignUp();
      const email = body.get('email') ?? '';
      retrying.sink.rejectRecipient(email, 451, 2);
      const answer = await retrying.app.inject({
        method: 'POST',
        url: SIGN_UP_PATH,
        headers: { 'content-type': FORM },
        payload: body.toString(),
      });
      expect(answer.statusCode).toBe(200);
      await retrying.sink.waitForMessages(1);
      await retrying.drain();
      expect(retrying.mailsTo(email)).toHaveLength(1);
      const row = await retrying.app.database.db
        .selectFrom('deliveries')
        .select(['state', 'attempts'])
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ state: 'sent', attempts: 3 });
    } finally {
      await retrying.close();
    }
  });

  it('is given up after a 5xx reply to the recipient, and stored without the address', async () => {
    const body = validSignUp();
    const email = body.get('email') ?? '';
    service.sink.rejectRecipient(email, 550);
    const answer = await service.app.inject({
      method: 'POST',
      url: SIGN_UP_PATH,
      headers: { 'content-type': FORM },
      payload: body.toString(),
    });
    expect(answer.statusCode).toBe(200);
    await service.drain();
    const row = await outboxRow(email);
    expect(row.state).toBe('dead');
    expect(row.attempts).toBe(1);
    expect(row.last_error).toContain('550');
    expect(row.last_error).not.toContain('@');
    await service.drain();
    expect((await outboxRow(email)).attempts).toBe(1);
    expect(service.mailsTo(email)).toHaveLength(0);
  });
});

describe('the copies of sent mails (ADR-0089)', () => {
  it('lose the address and the copy 7 days after sending, and not before', async () => {
    const old = await signUp();
    const recent = await signUp();
    await service.drain();
    const db = service.app.database.db;
    const oldRow = await outboxRow(old.email);
    const recentRow = await outboxRow(recent.email);
    await db
      .updateTable('deliveries')
      .set({ sent_at: sql<Date>`now() - interval '7 days 1 minute'` })
      .where('id', '=', oldRow.id)
      .execute();
    await db
      .updateTable('deliveries')
      .set({ sent_at: sql<Date>`now() - interval '6 days 23 hours'` })
      .where('id', '=', recentRow.id)
      .execute();
    const { deliveriesRepository } =
      await import('../../server/outbox/deliveries');
    expect(
      await deliveriesRepository(db).dropOldCopies(),
    ).toBeGreaterThanOrEqual(1);
    const rows = await db
      .selectFrom('deliveries')
      .select(['id', 'state', 'target', 'subject', 'text_body'])
      .where('id', 'in', [oldRow.id, recentRow.id])
      .execute();
    expect(rows.find((row) => row.id === oldRow.id)).toEqual({
      id: oldRow.id,
      state: 'sent',
      target: null,
      subject: null,
      text_body: null,
    });
    expect(rows.find((row) => row.id === recentRow.id)?.target).toBe(
      recent.email,
    );
  });
});
