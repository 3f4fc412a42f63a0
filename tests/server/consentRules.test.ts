/**
 * The rules of `POST /2/consent/` (server/consent/consentRules.ts; ADR-0065):
 * the client's network kept instead of its address (/24 for IPv4, /48 for
 * IPv6, written as RFC 5952 says), and a record's body read field by
 * field, refusing anything the record does not hold.
 */
import { describe, expect, it } from 'vitest';
import { networkOf } from '../../server/http/clientNetwork';
import {
  readConsentRecord,
  storedUserAgent,
} from '../../server/consent/consentRules';

describe('the network kept of a client address', () => {
  it.each([
    ['203.0.113.57', '203.0.113.0/24'],
    ['198.51.100.0', '198.51.100.0/24'],
    ['10.255.255.255', '10.255.255.0/24'],
    // IPv4-mapped (RFC 4291 §2.5.5.2): the IPv4 address it carries.
    ['::ffff:198.51.100.7', '198.51.100.0/24'],
    ['::FFFF:c633:6407', '198.51.100.0/24'],
    ['2001:db8:85a3:8d3:1319:8a2e:370:7348', '2001:db8:85a3::/48'],
    ['2001:0DB8:0000:0042:0000:0000:0000:0001', '2001:db8::/48'],
    ['2001:db8::1', '2001:db8::/48'],
    ['2001:db8:1::', '2001:db8:1::/48'],
    ['2001::7:8', '2001::/48'],
    ['::1', '::/48'],
    ['::', '::/48'],
    ['fe80::1%eth0', 'fe80::/48'],
    ['64:ff9b::192.0.2.33', '64:ff9b::/48'],
  ])('%s is stored as %s', (address, network) => {
    expect(networkOf(address)).toBe(network);
  });

  it.each(['', 'localhost', '203.0.113', '2001:db8:::1', '1.2.3.4.5'])(
    '%j is not an address: nothing is stored',
    (address) => {
      expect(networkOf(address)).toBeUndefined();
    },
  );
});

describe('the stored user agent', () => {
  it('is the header, cut at 512 code points', () => {
    expect(storedUserAgent('Mozilla/5.0 (X11)')).toBe('Mozilla/5.0 (X11)');
    const long = '😀'.repeat(600);
    expect(storedUserAgent(long)).toBe('😀'.repeat(512));
    expect(storedUserAgent(undefined)).toBeUndefined();
    expect(storedUserAgent('')).toBeUndefined();
  });
});

const ID = '0b6c1a5e-3f4d-4c2b-9a8e-1d2c3b4a5f60';
const valid = {
  consent_id: ID,
  choice: '1',
  revision: '3',
  source: 'modal',
  path: '/signup',
};
const invalid = (info: string) => ({
  success: false,
  code: 'CSAPI_INVALID_PARAMETER',
  info,
});

describe('a record body', () => {
  it('is read into the record, the choice spelt out', () => {
    expect(readConsentRecord(valid)).toEqual({
      consentId: ID,
      choice: 'accepted',
      revision: 3,
      source: 'modal',
      path: '/signup',
    });
    expect(
      readConsentRecord({ ...valid, choice: '0', source: 'settings' }),
    ).toMatchObject({ choice: 'rejected', source: 'settings' });
  });

  it('keeps the path without its query or fragment, and the id in lower case', () => {
    expect(
      readConsentRecord({
        ...valid,
        consent_id: ID.toUpperCase(),
        path: '/signup?utm_source=google&email=ada@example.com#top',
      }),
    ).toMatchObject({ consentId: ID, path: '/signup' });
    expect(readConsentRecord({ ...valid, path: '/a#b?c' })).toMatchObject({
      path: '/a',
    });
  });

  it('records a rejection from the browser’s privacy signal, never an accept', () => {
    expect(
      readConsentRecord({ ...valid, choice: '0', source: 'gpc' }),
    ).toMatchObject({ choice: 'rejected', source: 'gpc' });
    expect(readConsentRecord({ ...valid, source: 'gpc' })).toEqual(
      invalid('source'),
    );
  });

  it.each([
    ['a name', { name: 'Ada Lovelace' }],
    ['an e-mail address', { email: 'ada@example.com' }],
    ['a timestamp of its own', { recorded_at: '2020-01-01T00:00:00Z' }],
  ])('carrying %s is refused as a whole', (_what, extra) => {
    expect(readConsentRecord({ ...valid, ...extra })).toEqual(invalid('body'));
  });

  it.each([
    ['consent_id', undefined],
    ['consent_id', 'not-a-uuid'],
    ['consent_id', `${ID}0`],
    ['consent_id', [ID, ID]],
    ['choice', undefined],
    ['choice', 'yes'],
    ['choice', 'accepted'],
    ['choice', ['1', '0']],
    ['revision', undefined],
    ['revision', '0'],
    ['revision', '-1'],
    ['revision', '1.5'],
    ['revision', '01'],
    ['revision', '2147483648'],
    ['revision', ' 1'],
    ['source', undefined],
    ['source', 'banner'],
    ['source', 'Modal'],
    ['path', undefined],
    ['path', ''],
    ['path', 'signup'],
    ['path', 'https://example.com/signup'],
    ['path', '?utm_source=google'],
    ['path', `/${'a'.repeat(2048)}`],
    ['path', '/sign\nup'],
  ])('%s of %j is refused', (field, value) => {
    const body = Object.fromEntries(
      Object.entries({ ...valid, [field]: value }).filter(
        ([, given]) => given !== undefined,
      ),
    );
    expect(readConsentRecord(body)).toEqual(invalid(field));
  });

  it('takes the largest revision and the longest path', () => {
    expect(
      readConsentRecord({ ...valid, revision: '2147483647' }),
    ).toMatchObject({ revision: 2_147_483_647 });
    const path = `/${'a'.repeat(2047)}`;
    expect(readConsentRecord({ ...valid, path })).toMatchObject({ path });
  });
});
