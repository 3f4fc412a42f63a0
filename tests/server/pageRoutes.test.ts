/**
 * The page's route honours Global Privacy Control for what it serves (issue
 * 23, ADR-0074): a request that sends `Sec-GPC: 1` gets the page's copy marked
 * for it, any other the page, and caches are told the answer depends on the
 * header. (That the built copy differs only by `data-gpc` on `<html>`, with
 * the same inline blocks and CSP hashes, is tested on the built page:
 * tests/browser/csp.test.ts and tests/browser/consentAudit.test.ts.)
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiServer,
  PLACEHOLDER_GPC_PAGE,
  PLACEHOLDER_PAGE,
} from './support/apiServer';

let app: FastifyInstance;
beforeAll(async () => {
  app = await apiServer();
});
afterAll(() => app.close());

describe('GET /signup and Sec-GPC', () => {
  it.each([
    ['no Sec-GPC', {}, PLACEHOLDER_PAGE],
    ['Sec-GPC: 1', { 'sec-gpc': '1' }, PLACEHOLDER_GPC_PAGE],
    // The GPC specification's only value is 1: anything else is no signal.
    ['Sec-GPC: 0', { 'sec-gpc': '0' }, PLACEHOLDER_PAGE],
    ['Sec-GPC: true', { 'sec-gpc': 'true' }, PLACEHOLDER_PAGE],
  ])(
    '%s: the page it calls for, revalidated, varying by the header',
    async (_case, headers, page) => {
      const response = await app.inject({
        url: '/signup',
        headers: { ...headers, 'accept-encoding': 'identity' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(page);
      expect(response.headers['cache-control']).toBe('no-cache');
      const vary = String(response.headers.vary ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase());
      expect(vary).toContain('sec-gpc');
    },
  );
});
