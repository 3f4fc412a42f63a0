/**
 * Cross-site request forgery (issue 35; ADR-0088): a state-changing request
 * that another site's page sent is refused with 403 before it changes anything,
 * by `Sec-Fetch-Site` (W3C Fetch Metadata) or, where a browser sends none,
 * by `Origin` (RFC 6454) against the request's own `Host`. Programs that
 * send neither header (no browser) pass, as same-origin pages do. The
 * cases follow Go's `net/http` CrossOriginProtection tests.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSENT_RECORD_PATH } from '../../contract/consentRecord';
import { SIGN_UP_PATH } from '../../contract/signUp';
import { isSameOriginRequest } from '../../server/http/crossOrigin';
import {
  apiServer,
  expectApiAnswer,
  FORM,
  signUpForLogin,
  validSignUp,
} from './support/apiServer';

const HOST = 'signup.vigil.example';

describe('which requests may change state', () => {
  it.each([
    [
      'Sec-Fetch-Site: same-origin',
      'POST',
      { 'sec-fetch-site': 'same-origin' },
      true,
    ],
    [
      'Sec-Fetch-Site: none (the visitor’s own action)',
      'POST',
      { 'sec-fetch-site': 'none' },
      true,
    ],
    [
      'Sec-Fetch-Site: same-site (a sibling subdomain)',
      'POST',
      { 'sec-fetch-site': 'same-site' },
      false,
    ],
    [
      'Sec-Fetch-Site: cross-site',
      'POST',
      { 'sec-fetch-site': 'cross-site' },
      false,
    ],
    [
      'Sec-Fetch-Site: cross-site, whatever Origin says',
      'POST',
      { 'sec-fetch-site': 'cross-site', origin: `https://${HOST}` },
      false,
    ],
    [
      'no Sec-Fetch-Site, Origin of the host itself',
      'POST',
      { origin: `https://${HOST}` },
      true,
    ],
    [
      'no Sec-Fetch-Site, Origin in another case',
      'POST',
      { origin: `https://SIGNUP.vigil.example` },
      true,
    ],
    [
      'no Sec-Fetch-Site, Origin of another site',
      'POST',
      { origin: 'https://attacker.example' },
      false,
    ],
    [
      'no Sec-Fetch-Site, Origin of another port',
      'POST',
      { origin: `https://${HOST}:8443` },
      false,
    ],
    [
      'no Sec-Fetch-Site, Origin of a sibling subdomain',
      'POST',
      { origin: 'https://www.vigil.example' },
      false,
    ],
    [
      'no Sec-Fetch-Site, an opaque Origin (null)',
      'POST',
      { origin: 'null' },
      false,
    ],
    [
      'no Sec-Fetch-Site, an unreadable Origin',
      'POST',
      { origin: 'not a url' },
      false,
    ],
    ['neither header (a program, not a browser)', 'POST', {}, true],
    ['a cross-site PUT', 'PUT', { 'sec-fetch-site': 'cross-site' }, false],
    [
      'a cross-site DELETE',
      'DELETE',
      { 'sec-fetch-site': 'cross-site' },
      false,
    ],
    [
      'a cross-site GET (changes nothing)',
      'GET',
      { 'sec-fetch-site': 'cross-site' },
      true,
    ],
    ['a cross-site HEAD', 'HEAD', { origin: 'https://attacker.example' }, true],
  ] as const)('%s: %s', (_what, method, headers, allowed) => {
    expect(isSameOriginRequest(method, headers, HOST)).toBe(allowed);
  });
});

let app: FastifyInstance;

beforeAll(async () => {
  app = await apiServer();
});

afterAll(() => app.close());

/** What a browser sends with a form another site's page posts. */
const FORGED = {
  'content-type': FORM,
  origin: 'https://attacker.example',
  'sec-fetch-site': 'cross-site',
};
/** What it sends with a form of the service's own page. */
const OWN = {
  'content-type': FORM,
  origin: 'http://localhost',
  'sec-fetch-site': 'same-origin',
};

/** A POST as a browser sends it, with the headers of `from`. */
const post = (
  url: string,
  from: Record<string, string>,
  payload: string,
  cookie?: string,
) =>
  app.inject({
    method: 'POST',
    url,
    headers: { ...from, ...(cookie !== undefined && { cookie }) },
    payload,
  });

describe('a state-changing request another site sent', () => {
  it('creates no account', async () => {
    const body = validSignUp().toString();
    const forged = await post(SIGN_UP_PATH, FORGED, body);
    expect(forged.statusCode).toBe(403);
    expect(expectApiAnswer(forged)).toEqual({
      success: false,
      code: 'CSAPI_FORBIDDEN',
      info: 'origin',
    });
    // The address is still free: the same sign-up from the page succeeds.
    const own = await post(SIGN_UP_PATH, OWN, body);
    expect(own.statusCode).toBe(200);
  });

  it('stores no consent record', async () => {
    const consentId = randomUUID();
    const body = new URLSearchParams({
      consent_id: consentId,
      choice: '1',
      revision: '1',
      source: 'modal',
      path: '/signup',
    }).toString();
    const forged = await post(
      CONSENT_RECORD_PATH,
      { ...FORGED, 'sec-fetch-site': 'same-site' },
      body,
    );
    expect(forged.statusCode).toBe(403);
    const stored = () =>
      app.database.db
        .selectFrom('consent_records')
        .select('choice')
        .where('consent_id', '=', consentId)
        .execute();
    await expect(stored()).resolves.toEqual([]);
    const own = await post(CONSENT_RECORD_PATH, OWN, body);
    expect(own.statusCode).toBe(204);
    await expect(stored()).resolves.toEqual([{ choice: 'accepted' }]);
  });

  it('ends no session', async () => {
    const { login } = await signUpForLogin(app);
    const first = await app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie: login },
    });
    const session = first.cookies.find(
      (cookie) => cookie.name === 'Vigil_SESSION',
    )?.value;
    expect(session).toBeDefined();
    const cookie = `Vigil_SESSION=${session}`;

    // Without Sec-Fetch-Site, by its Origin alone.
    const forged = await post(
      '/sign-out',
      { origin: 'https://attacker.example' },
      '',
      cookie,
    );
    expect(forged.statusCode).toBe(403);
    const still = await app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie },
    });
    expect(still.body).toContain('data-testid="account-email"');

    const own = await post('/sign-out', OWN, '', cookie);
    expect(own.statusCode).toBe(303);
    const after = await app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie },
    });
    expect(after.body).not.toContain('data-testid="account-email"');
  });
});
