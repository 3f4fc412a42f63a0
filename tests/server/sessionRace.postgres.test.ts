/**
 * The race between a squatter's first sign-in and the owner's first link
 * (issue 46, item 4; ADR-0113), on PostgreSQL with two connections: every CTE
 * of a statement shares one snapshot, so without a lock on the account's
 * row, the link's "end every other session" cannot see a session that the
 * squatter's redeem inserts at the same moment. The test holds the
 * redeem between its insert and its commit (a trigger that waits on an
 * advisory lock the test holds), posts the owner's link meanwhile, waits
 * until the database says both are waiting, then lets them go: the
 * squatter must end signed out, whoever commits first.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseSettings } from '../../server/db/database';
import { scratchDatabase } from '../../harness/page/scratchDatabase';
import { signUpForLogin } from './support/apiServer';
import {
  askSignIn,
  hook,
  lastMailTo,
  type MailService,
  postForm,
  SESSION_COOKIE,
  sessionCookie,
  startMailService,
  tokenOf,
} from './support/mailService';

/** The advisory lock the trigger waits on while the test holds it. */
const HOLD = 4646;

let settings: DatabaseSettings;
let service: MailService;
let control: pg.Client;

beforeAll(async () => {
  settings = await scratchDatabase();
  if (settings.engine !== 'postgres') throw new Error('PostgreSQL only');
  service = await startMailService({ database: settings });
  control = new pg.Client({ connectionString: settings.url });
  await control.connect();
  // Every session insert waits until the test lets it go.
  await control.query(`
    create function hold_session_insert() returns trigger
      language plpgsql as $$
      begin
        perform pg_advisory_xact_lock(${HOLD});
        return new;
      end $$;
    create trigger hold_session_insert before insert on sessions
      for each row execute function hold_session_insert();`);
});

afterAll(async () => {
  await control.end();
  await service.close();
});

/** Resolves once at least `count` backends wait for a lock. */
async function waiting(count: number): Promise<void> {
  for (;;) {
    const { rows } = await control.query<{ waiting: string }>(
      'select count(*) as waiting from pg_locks where not granted',
    );
    if (Number(rows[0]?.waiting ?? 0) >= count) return;
    await new Promise((next) => setImmediate(next));
  }
}

describe('a redeem and the owner’s first link at the same moment', () => {
  it('ends the squatter’s session, which the redeem inserted while the link ran', async () => {
    // The squatter signed up with the owner's address; its first sign-in
    // is still to come. The owner asks for a sign-in link.
    const squatter = await signUpForLogin(service.app);
    const email = squatter.body.get('email') ?? '';
    await askSignIn(service.app, email, '203.0.113.71');
    const link = await lastMailTo(service, email);

    await control.query('select pg_advisory_lock($1)', [HOLD]);
    const redeem = service.app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie: squatter.login },
    });
    await waiting(1);
    const owner = postForm(service.app, '/link', { token: tokenOf(link) });
    await waiting(2);
    await control.query('select pg_advisory_unlock($1)', [HOLD]);

    const [redeemed, signedIn] = await Promise.all([redeem, owner]);
    expect(signedIn.statusCode).toBe(303);
    const ownerCookie = `${SESSION_COOKIE}=${sessionCookie(signedIn) ?? ''}`;
    const squatterSession = sessionCookie(redeemed);
    // The redeem committed first: it opened a session, which the link saw.
    expect(squatterSession).toBeDefined();

    const visit = (cookie: string) =>
      service.app.inject({ method: 'GET', url: '/', headers: { cookie } });
    const squatterHome = await visit(
      `${SESSION_COOKIE}=${squatterSession ?? ''}`,
    );
    expect(hook(squatterHome.body, 'signed-out')).toBeDefined();
    expect(hook((await visit(ownerCookie)).body, 'account-email')).toBe(email);
  });
});
