/**
 * The monitor's address rule (server/monitor/check/addressRule.ts): only public
 * unicast addresses pass (OWASP SSRF Prevention Cheat Sheet, "any external
 * host"; the special-purpose ranges of RFC 6890's registries), unless a
 * network is allowed by MONITOR_ALLOWED_NETWORKS; and a URL whose host is
 * an IP literal, in any of the encodings WHATWG URL parsing turns into
 * 127.0.0.1, is refused by a check without asking the resolver.
 *
 * The public addresses below are only classified, never connected to.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  addressRule,
  DEFAULT_DENIED_NETWORKS,
  isPublicAddress,
  parseAllowedNetworks,
  parseDeniedNetworks,
} from '../../../server/monitor/check/addressRule';
import { checkSite } from '../../../server/monitor/check/siteCheck';
import {
  loopbackTripwire,
  testResolver,
} from '../../../harness/monitor/tripwire';

const REFUSED: [string, string][] = [
  ['loopback', '127.0.0.1'],
  ['loopback, anywhere in 127/8', '127.1.2.3'],
  ['IPv6 loopback', '::1'],
  ['private 10/8', '10.0.0.1'],
  ['private 10/8, its top', '10.255.255.255'],
  ['private 172.16/12', '172.16.0.1'],
  ['private 172.16/12, its top', '172.31.255.254'],
  ['private 192.168/16', '192.168.1.1'],
  ['link-local, the cloud metadata address', '169.254.169.254'],
  ['link-local', '169.254.0.1'],
  ['IPv6 link-local', 'fe80::1'],
  ['unique local, the AWS metadata IPv6 address', 'fd00:ec2::254'],
  ['unique local fc00::/7', 'fc00::1'],
  ['carrier-grade NAT 100.64/10', '100.64.0.1'],
  ['carrier-grade NAT, its top', '100.127.255.254'],
  ['NAT64 64:ff9b::/96 (to 127.0.0.1)', '64:ff9b::7f00:1'],
  ['NAT64 64:ff9b::/96 (to a public address)', '64:ff9b::808:808'],
  ['local-use NAT64 64:ff9b:1::/48', '64:ff9b:1::1'],
  ['6to4 2002::/16', '2002:7f00:1::1'],
  ['Teredo 2001::/32', '2001::1'],
  ['IETF protocol assignments 2001::/23', '2001:1::1'],
  ['unspecified', '0.0.0.0'],
  ['"this network" 0/8', '0.1.2.3'],
  ['IPv6 unspecified', '::'],
  ['multicast', '224.0.0.1'],
  ['multicast, its top', '239.255.255.255'],
  ['IPv6 multicast', 'ff02::1'],
  ['limited broadcast', '255.255.255.255'],
  ['reserved 240/4', '240.0.0.1'],
  ['IETF protocol assignments 192.0.0/24', '192.0.0.8'],
  ['documentation TEST-NET-1', '192.0.2.1'],
  ['documentation TEST-NET-2', '198.51.100.1'],
  ['documentation TEST-NET-3', '203.0.113.1'],
  ['IPv6 documentation 2001:db8::/32', '2001:db8::1'],
  ['IPv6 documentation 3fff::/20', '3fff::1'],
  ['benchmarking 198.18/15', '198.18.0.1'],
  ['IPv6 benchmarking 2001:2::/48', '2001:2::1'],
  ['discard-only 100::/64', '100::1'],
  ['IPv4-mapped loopback, dotted', '::ffff:127.0.0.1'],
  ['IPv4-mapped loopback, hex', '::ffff:7f00:1'],
  ['IPv4-mapped private', '::ffff:10.0.0.1'],
  ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
  ['IPv4-compatible (deprecated) loopback', '::127.0.0.1'],
  ['IPv4-translated (RFC 6145)', '::ffff:0:7f00:1'],
  ['outside 2000::/3', '4000::1'],
  ['site-local (deprecated)', 'fec0::1'],
  ['a zone id', 'fe80::1%eth0'],
  ['a zone id on a public-looking address', '2606:4700:4700::1111%1'],
  ['the empty string', ''],
  ['a name', 'localhost'],
  ['garbage', 'not an address'],
  ['an IPv4 with five parts', '1.2.3.4.5'],
  ['an octet above 255', '1.2.3.256'],
  ['a hex form, ambiguous between parsers', '0x7f.1'],
  ['a decimal integer form', '2130706433'],
  ['an octal form', '0177.0.0.1'],
  ['a public address in the octal form', '010.8.8.8'],
  ['a CIDR', '8.8.8.0/24'],
  ['an address in brackets', '[2606:4700:4700::1111]'],
  ['an address with a port', '1.1.1.1:80'],
];

const PUBLIC: string[] = [
  '93.184.216.34',
  '1.1.1.1',
  '8.8.8.8',
  '9.9.9.9',
  '172.15.255.255',
  '172.32.0.1',
  '100.63.255.255',
  '100.128.0.1',
  '11.0.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:1.1.1.1',
];

describe('isPublicAddress', () => {
  it.each(REFUSED)('refuses %s: %s', (_what, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(PUBLIC)('passes the public unicast address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('parseAllowedNetworks', () => {
  it('is empty when the variable is unset, empty or blank', () => {
    expect(parseAllowedNetworks(undefined)).toEqual([]);
    expect(parseAllowedNetworks('')).toEqual([]);
    expect(parseAllowedNetworks('  ,  ')).toEqual([]);
  });

  it('reads a list separated by commas and spaces', () => {
    expect(parseAllowedNetworks('10.0.0.0/8, fd00::/8 127.0.0.0/8')).toEqual([
      { network: '10.0.0.0', prefixLength: 8 },
      { network: 'fd00::', prefixLength: 8 },
      { network: '127.0.0.0', prefixLength: 8 },
    ]);
  });

  it.each([
    ['a bare address', '10.0.0.1'],
    ['a name', 'intranet.local/8'],
    ['a prefix too long for IPv4', '10.0.0.0/33'],
    ['a prefix too long for IPv6', 'fd00::/129'],
    ['an empty prefix', '10.0.0.0/'],
    ['host bits set', '10.0.0.1/8'],
    ['a zone id', 'fe80::%eth0/64'],
    ['a hex form', '0x0a.0.0.0/8'],
  ])('throws naming MONITOR_ALLOWED_NETWORKS on %s', (_what, entry) => {
    expect(() => parseAllowedNetworks(`127.0.0.0/8, ${entry}`)).toThrow(
      /MONITOR_ALLOWED_NETWORKS/,
    );
  });

  it.each([
    ['a bare address', '10.0.0.1'],
    ['a zone id', 'fe80::%eth0/64'],
    ['a hex form', '0x0a.0.0.0/8'],
  ])('says %s is not a network in CIDR notation', (_what, entry) => {
    expect(() => parseAllowedNetworks(entry)).toThrow(
      `MONITOR_ALLOWED_NETWORKS: "${entry}" is not a network in CIDR notation, like 10.0.0.0/8 or fd00::/8`,
    );
  });

  it('says which network was meant when host bits are set', () => {
    expect(() => parseAllowedNetworks('10.0.0.1/8')).toThrow(
      'MONITOR_ALLOWED_NETWORKS: "10.0.0.1/8" has host bits set; did you mean 10.0.0.0/8?',
    );
  });
});

describe('addressRule', () => {
  const testRule = addressRule(parseAllowedNetworks('127.0.0.0/8, ::1/128'));

  it('passes public addresses with no network allowed', () => {
    const rule = addressRule([]);
    expect(rule('1.1.1.1')).toBe(true);
    expect(rule('2606:4700:4700::1111')).toBe(true);
  });

  it.each(REFUSED)(
    'refuses %s (%s) with no network allowed',
    (_what, address) => {
      expect(addressRule([])(address)).toBe(false);
    },
  );

  it('passes addresses inside an allowed network', () => {
    expect(testRule('127.0.0.1')).toBe(true);
    expect(testRule('127.255.0.9')).toBe(true);
    expect(testRule('::1')).toBe(true);
    // The mapped form reaches the same IPv4 address.
    expect(testRule('::ffff:127.0.0.1')).toBe(true);
  });

  it('still refuses what no allowed network holds', () => {
    expect(testRule('10.0.0.1')).toBe(false);
    expect(testRule('169.254.169.254')).toBe(false);
    expect(testRule('::2')).toBe(false);
    expect(testRule('fe80::1')).toBe(false);
    expect(testRule('garbage')).toBe(false);
    expect(testRule('127.0.0.1%lo')).toBe(false);
  });

  it('passes a private network once it is allowed, and only that one', () => {
    const rule = addressRule(parseAllowedNetworks('10.1.0.0/16, fd00::/8'));
    expect(rule('10.1.2.3')).toBe(true);
    expect(rule('10.2.0.1')).toBe(false);
    expect(rule('fd00:ec2::254')).toBe(true);
    expect(rule('fc00::1')).toBe(false);
  });

  // Issue 58: allowing a NAT64 prefix (an IPv6-only host behind a
  // translator) must not open what the translator reaches behind it.
  it.each([
    ['64:ff9b::/96', '64:ff9b::808:808', true, 'to 8.8.8.8'],
    ['64:ff9b::/96', '64:ff9b::8.8.8.8', true, 'to 8.8.8.8, dotted'],
    ['64:ff9b::/96', '64:ff9b::a9fe:a9fe', false, 'to 169.254.169.254'],
    ['64:ff9b::/96', '64:ff9b::7f00:1', false, 'to 127.0.0.1'],
    ['64:ff9b::/96', '64:ff9b::a00:1', false, 'to 10.0.0.1'],
    ['64:ff9b::/96', '64:ff9b::a83f:8110', false, 'to 168.63.129.16 (denied)'],
    ['64:ff9b:1::/48', '64:ff9b:1::101:101', true, 'local-use, to 1.1.1.1'],
    [
      '64:ff9b:1::/48',
      '64:ff9b:1:2::a9fe:a9fe',
      false,
      'local-use, to the metadata',
    ],
    [
      '10.0.0.0/8',
      '64:ff9b::a00:1',
      false,
      'a NAT64 prefix not allowed, to an allowed 10.0.0.1',
    ],
  ])(
    'with %s allowed, judges %s by the IPv4 address inside (%s): %s',
    (allowed, address, passes) => {
      const rule = addressRule(
        parseAllowedNetworks(allowed),
        parseDeniedNetworks(undefined),
      );
      expect(rule(address)).toBe(passes);
    },
  );

  it("refuses a denied network though it is public or allowed: Azure's 168.63.129.16 by default", () => {
    expect(DEFAULT_DENIED_NETWORKS).toBe('168.63.129.16/32');
    expect(isPublicAddress('168.63.129.16')).toBe(true);
    const byDefault = addressRule([], parseDeniedNetworks(undefined));
    expect(byDefault('168.63.129.16')).toBe(false);
    expect(byDefault('::ffff:168.63.129.16')).toBe(false);
    expect(byDefault('168.63.129.17')).toBe(true);
    const denied = addressRule(
      parseAllowedNetworks('10.0.0.0/8'),
      parseDeniedNetworks('10.9.0.0/16, 2606:4700::/32'),
    );
    expect(denied('10.9.1.1')).toBe(false);
    expect(denied('10.8.1.1')).toBe(true);
    expect(denied('2606:4700:4700::1111')).toBe(false);
    // Set, the variable replaces the default.
    expect(denied('168.63.129.16')).toBe(true);
  });
});

describe('parseDeniedNetworks', () => {
  it("is Azure's platform address when the variable is unset, empty or blank", () => {
    for (const raw of [undefined, '', '  ']) {
      expect(parseDeniedNetworks(raw)).toEqual([
        { network: '168.63.129.16', prefixLength: 32 },
      ]);
    }
  });

  it('throws naming MONITOR_DENIED_NETWORKS on an entry that is no network', () => {
    expect(() => parseDeniedNetworks('10.0.0.1/8')).toThrow(
      /^MONITOR_DENIED_NETWORKS: "10.0.0.1\/8" has host bits set/,
    );
    expect(() => parseDeniedNetworks('azure')).toThrow(
      /^MONITOR_DENIED_NETWORKS: "azure" is not a network/,
    );
  });
});

describe('a check of a URL whose host is a refused IP literal', () => {
  const tripwire = loopbackTripwire();
  afterEach(() => {
    expect(tripwire.attempts).toEqual([]);
  });

  // WHATWG URL parsing turns the integer, hex and short forms into
  // 127.0.0.1, and keeps the mapped IPv6 form: each is the loopback.
  it.each([
    'http://127.0.0.1/',
    'http://[::1]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://0.0.0.0/',
    'https://10.0.0.1/',
  ])(
    'refuses %s as not_public, without resolving or connecting',
    async (url) => {
      const resolver = testResolver({});
      const result = await checkSite(url, {
        userAgent: 'Vigil-Monitor/1 (+http://vigil.test)',
        resolve: resolver.resolve,
        isAllowed: addressRule([]),
        beforeConnect: tripwire.beforeConnect,
      });
      expect(result).toMatchObject({ outcome: 'down', reason: 'not_public' });
      expect(resolver.calls).toEqual([]);
    },
  );
});
