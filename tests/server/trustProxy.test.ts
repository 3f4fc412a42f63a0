/**
 * `TRUST_PROXY` (docs/contract.md "Configuration"): behind a reverse proxy
 * the rate limit counts each client by the address the trusted proxy
 * forwards, not by the proxy's own; without it, `X-Forwarded-For` is not
 * believed, so no client can pick its own address.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { FORM, apiServer, validSignUp } from './support/apiServer';
import { SIGN_UP_PATH } from '../../contract/signUp';
import { trustProxyFrom } from '../../server/environment';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

function signUpFrom(
  server: FastifyInstance,
  forwardedFor: string | undefined,
  remoteAddress = '10.0.0.2',
) {
  return server
    .inject({
      method: 'POST',
      url: SIGN_UP_PATH,
      headers: {
        'content-type': FORM,
        ...(forwardedFor !== undefined && { 'x-forwarded-for': forwardedFor }),
      },
      payload: validSignUp().toString(),
      remoteAddress,
    })
    .then((answer) => answer.statusCode);
}

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
    ['2', 2],
    ['10.0.0.2, 10.1.0.0/16', ['10.0.0.2', '10.1.0.0/16']],
  ] as const)('%j is read as %j', (value, expected) => {
    expect(trustProxyFrom({ TRUST_PROXY: value })).toEqual(expected);
  });

  it('counts each forwarded client apart behind a trusted proxy', async () => {
    app = await apiServer({ rateLimit: 1, trustProxy: ['10.0.0.2'] });
    expect(await signUpFrom(app, '203.0.113.1')).toBe(200);
    expect(await signUpFrom(app, '203.0.113.2')).toBe(200);
    expect(await signUpFrom(app, '203.0.113.1')).toBe(429);
  });

  it('believes no forwarded address by default', async () => {
    app = await apiServer({ rateLimit: 1 });
    expect(await signUpFrom(app, '203.0.113.1')).toBe(200);
    expect(await signUpFrom(app, '203.0.113.2')).toBe(429);
  });

  it('counts an IPv6 client by its /64, which one subscriber holds whole', async () => {
    app = await apiServer({ rateLimit: 1 });
    expect(await signUpFrom(app, undefined, '2001:db8:1:2::1')).toBe(200);
    // Another address of the same /64 is the same client…
    expect(await signUpFrom(app, undefined, '2001:db8:1:2:ffff::9')).toBe(429);
    // …and the next /64 another one.
    expect(await signUpFrom(app, undefined, '2001:db8:1:3::1')).toBe(200);
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it is', async () => {
    app = await apiServer({ rateLimit: 1 });
    expect(await signUpFrom(app, undefined, '::ffff:203.0.113.9')).toBe(200);
    expect(await signUpFrom(app, undefined, '203.0.113.9')).toBe(429);
  });
});
