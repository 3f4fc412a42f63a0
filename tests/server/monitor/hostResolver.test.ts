/**
 * The monitor's resolver (server/monitor/check/hostResolver.ts, issue 58)
 * against a DNS server on 127.0.0.1 (harness/monitor/dnsServer.ts) and a
 * hosts file of the test's: the file's names first, A and AAAA from DNS,
 * a name that does not exist, and names whose server never answers, which
 * must hold nothing the other lookups need. No query leaves loopback.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hostResolver,
  parseHosts,
} from '../../../server/monitor/check/hostResolver';
import {
  startDnsServer,
  type LoopbackDnsServer,
} from '../../../harness/monitor/dnsServer';

const HANGING = Array.from({ length: 20 }, (_, index) => `hang${index}.test`);
const ANSWERED = Array.from({ length: 20 }, (_, index) => `site${index}.test`);

let dns: LoopbackDnsServer;
let hostsFile: string;

beforeAll(async () => {
  dns = await startDnsServer({
    a: {
      'both.test': ['127.0.0.2'],
      'v4.test': ['127.0.0.3', '127.0.0.4'],
      'from-dns.test': ['127.0.0.9'],
      ...Object.fromEntries(ANSWERED.map((name) => [name, ['127.0.0.1']])),
    },
    aaaa: { 'both.test': ['::1'], 'v6.test': ['::1'] },
    silent: HANGING,
  });
  hostsFile = join(mkdtempSync(join(tmpdir(), 'hosts-')), 'hosts');
  writeFileSync(
    hostsFile,
    [
      '# a comment line',
      '127.0.0.7  file.test  Alias.Test   # a trailing comment',
      '::1        file.test',
      'not-an-address  broken.test',
      'fe80::1%eth0  zoned.test',
      '127.0.0.8  from-dns.test',
    ].join('\n'),
  );
});

afterAll(async () => {
  await dns?.close();
});

const resolverFor = (timeoutMs = 10_000) =>
  hostResolver({ servers: [dns.server], hostsFile, timeoutMs, tries: 1 });

describe('parseHosts', () => {
  it('reads hosts(5): an address and its names, comments and bad lines skipped', () => {
    expect(
      Object.fromEntries(
        parseHosts(
          '# x\n127.0.0.1 localhost Local.\n::1 localhost\n\nbad line\n10.0.0.1 a b # c\n',
        ),
      ),
    ).toEqual({
      localhost: ['127.0.0.1', '::1'],
      local: ['127.0.0.1'],
      a: ['10.0.0.1'],
      b: ['10.0.0.1'],
    });
  });
});

describe('hostResolver', () => {
  it("answers a name of the hosts file from the file, in the file's order, asking no server", async () => {
    const resolve = resolverFor();
    const before = dns.queries.length;
    await expect(resolve('File.Test.')).resolves.toEqual([
      { address: '127.0.0.7', family: 4 },
      { address: '::1', family: 6 },
    ]);
    await expect(resolve('alias.test')).resolves.toEqual([
      { address: '127.0.0.7', family: 4 },
    ]);
    // The file wins over DNS for a name it holds.
    await expect(resolve('from-dns.test')).resolves.toEqual([
      { address: '127.0.0.8', family: 4 },
    ]);
    expect(dns.queries.slice(before)).toEqual([]);
  });

  it('asks DNS for A and AAAA, IPv4 first', async () => {
    const resolve = resolverFor();
    await expect(resolve('both.test')).resolves.toEqual([
      { address: '127.0.0.2', family: 4 },
      { address: '::1', family: 6 },
    ]);
    await expect(resolve('v4.test')).resolves.toEqual([
      { address: '127.0.0.3', family: 4 },
      { address: '127.0.0.4', family: 4 },
    ]);
    await expect(resolve('v6.test')).resolves.toEqual([
      { address: '::1', family: 6 },
    ]);
  });

  it.each(['missing.test', 'broken.test', 'zoned.test'])(
    'says %s does not exist (ENOTFOUND) when neither record does',
    async (name) => {
      await expect(resolverFor()(name)).rejects.toMatchObject({
        code: 'ENOTFOUND',
      });
    },
  );

  it("reports a server that never answers as its time-out, not as a name that doesn't exist", async () => {
    await expect(resolverFor(200)(HANGING[0] ?? '')).rejects.toMatchObject({
      code: 'ETIMEOUT',
    });
  });

  it('answers every other name while 20 lookups hang: a hanging name holds nothing they need', async () => {
    const resolve = resolverFor(60_000);
    let settled = 0;
    const hanging = HANGING.map((name) =>
      resolve(name).then(
        () => (settled += 1),
        () => (settled += 1),
      ),
    );
    const answered = await Promise.all(ANSWERED.map((name) => resolve(name)));
    expect(answered).toEqual(
      ANSWERED.map(() => [{ address: '127.0.0.1', family: 4 }]),
    );
    // Each hanging name was asked, and none has had an answer.
    for (const name of HANGING) expect(dns.queries).toContain(name);
    expect(settled).toBe(0);
    resolve.cancel();
    await Promise.all(hanging);
    expect(settled).toBe(HANGING.length);
  });
});
