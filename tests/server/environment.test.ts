/**
 * Defaults that are safe to deploy (issue 35; ADR-0090, ADR-0089;
 * docs/contract.md "Configuration"): a configuration that would run unsafely
 * stops the service with a message naming its variables, one that runs but
 * unsafely says so at start, and the settings the service reads (PUBLIC_URL,
 * CONSENT_RETENTION_DAYS) are checked like every other.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RECAPTCHA_TEST_SITE_KEY } from '../../common/config';
import {
  captchaFrom,
  consentRetentionDaysFrom,
  mailNotice,
  publicUrlFrom,
  runtimeNotice,
  serverOptionsFrom,
  startupWarnings,
  type ServerEnvironment,
} from '../../server/environment';
import { redactedUrl } from '../../server/db/database';
import { monitorNotice, monitorUserAgent } from '../../server/monitor/index';
import { pinnedResolver } from '../../server/monitor/settings';

const REAL_KEY = '6Lc_real_site_key_of_the_product_000000000';

function options(env: ServerEnvironment) {
  return serverOptionsFrom({ DATA_DIR: '/tmp/unused', ...env }, '/tmp/dist');
}

/**
 * Canaries named, so that a test about another variable's warning hears
 * that one alone (without them the start warns too: "the canaries" below).
 */
const CANARIES = {
  MONITOR_CANARY_URLS:
    'https://canary-one.example/ https://canary-two.example/',
};

describe('the captcha', () => {
  it('refuses a real site key without a secret, naming both variables', () => {
    expect(() => options({ RECAPTCHA_SITE_KEY: REAL_KEY })).toThrow(
      /RECAPTCHA_SITE_KEY.*RECAPTCHA_SECRET/,
    );
  });

  it('refuses a real site key served from the default PUBLIC_URL, naming it', () => {
    expect(() =>
      options({ RECAPTCHA_SITE_KEY: REAL_KEY, RECAPTCHA_SECRET: 's' }),
    ).toThrow(/PUBLIC_URL/);
  });

  it('verifies a real key’s tokens with its secret, for PUBLIC_URL’s host', () => {
    expect(
      options({
        RECAPTCHA_SITE_KEY: REAL_KEY,
        RECAPTCHA_SECRET: ' the-secret ',
        PUBLIC_URL: 'https://Signup.Vigil.example',
      }).captcha,
    ).toEqual({ secret: 'the-secret', hostname: 'signup.vigil.example' });
  });

  it('verifies nothing with Google’s test key and no secret, and says so at start', () => {
    for (const env of [
      CANARIES,
      { ...CANARIES, RECAPTCHA_SITE_KEY: RECAPTCHA_TEST_SITE_KEY },
    ]) {
      expect(options(env).captcha).toBeUndefined();
      expect(startupWarnings(options(env))).toEqual([
        expect.stringMatching(
          /RECAPTCHA_SITE_KEY is Google's test key: captcha tokens are not verified/,
        ),
      ]);
    }
  });

  it('with the test key and a secret, checks success but not the host name', () => {
    expect(
      captchaFrom({ RECAPTCHA_SECRET: 's' }, RECAPTCHA_TEST_SITE_KEY),
    ).toEqual({ secret: 's' });
    expect(
      startupWarnings(options({ ...CANARIES, RECAPTCHA_SECRET: 's' })),
    ).toEqual([]);
  });

  it('takes another verifier over https, or on this host', () => {
    for (const verifyUrl of [
      'https://www.recaptcha.net/recaptcha/api/siteverify',
      'http://127.0.0.1:8080/siteverify',
      'http://localhost:8080/siteverify',
      'http://[::1]:8080/siteverify',
    ]) {
      expect(
        captchaFrom(
          { RECAPTCHA_SECRET: 's', RECAPTCHA_VERIFY_URL: verifyUrl },
          RECAPTCHA_TEST_SITE_KEY,
        )?.verifyUrl,
      ).toBe(verifyUrl);
    }
  });

  it.each([
    'http://verifier.example/siteverify',
    'ftp://verifier.example/',
    'not a url',
  ])(
    'refuses RECAPTCHA_VERIFY_URL %j, which would carry the secret in the clear',
    (verifyUrl) => {
      expect(() =>
        captchaFrom(
          { RECAPTCHA_SECRET: 's', RECAPTCHA_VERIFY_URL: verifyUrl },
          RECAPTCHA_TEST_SITE_KEY,
        ),
      ).toThrow(/RECAPTCHA_VERIFY_URL/);
    },
  );
});

describe('TRUST_PROXY', () => {
  it('warns at start when it trusts every hop, naming the variable and the safe values', () => {
    const warnings = startupWarnings(
      options({ ...CANARIES, TRUST_PROXY: 'true', RECAPTCHA_SECRET: 's' }),
    );
    expect(warnings).toEqual([
      expect.stringMatching(
        /TRUST_PROXY=true.*X-Forwarded-For.*number of proxies/,
      ),
    ]);
  });

  it.each(['1', '2', '10.0.0.2', '10.0.0.0/8, 192.168.1.1', 'false', ''])(
    'says nothing of %j',
    (value) => {
      expect(
        startupWarnings(
          options({ ...CANARIES, TRUST_PROXY: value, RECAPTCHA_SECRET: 's' }),
        ),
      ).toEqual([]);
    },
  );
});

describe('PUBLIC_URL', () => {
  it('defaults to http://localhost:$PORT', () => {
    expect(publicUrlFrom({})).toBe('http://localhost:1234');
    expect(publicUrlFrom({ PORT: '8080' })).toBe('http://localhost:8080');
  });

  it.each([
    ['https://vigil.example', 'https://vigil.example'],
    [' https://Vigil.Example/ ', 'https://vigil.example'],
    ['http://localhost:3000', 'http://localhost:3000'],
  ])('reads %j as the origin %j', (value, origin) => {
    expect(publicUrlFrom({ PUBLIC_URL: value })).toBe(origin);
  });

  it.each([
    'vigil.example',
    'ftp://vigil.example',
    'https://vigil.example/signup',
    'https://vigil.example/?x=1',
  ])('refuses %j, naming the variable', (value) => {
    expect(() => publicUrlFrom({ PUBLIC_URL: value })).toThrow(/PUBLIC_URL/);
  });
});

describe('CONSENT_RETENTION_DAYS', () => {
  it('keeps records three years by default', () => {
    expect(consentRetentionDaysFrom({})).toBe(1095);
    expect(options({}).consentRetentionDays).toBe(1095);
  });

  it.each([
    ['365', 365],
    ['1826', 1826],
  ])('reads %j as %d days', (value, days) => {
    expect(consentRetentionDaysFrom({ CONSENT_RETENTION_DAYS: value })).toBe(
      days,
    );
  });

  it.each(['364', '30', '0', '-1', 'forever', '1.5'])(
    'refuses %j, naming the variable',
    (value) => {
      expect(() =>
        consentRetentionDaysFrom({ CONSENT_RETENTION_DAYS: value }),
      ).toThrow(/CONSENT_RETENTION_DAYS/);
    },
  );

  it('says why a year is the least', () => {
    expect(() =>
      consentRetentionDaysFrom({ CONSENT_RETENTION_DAYS: '100' }),
    ).toThrow(/at least 365: a record must outlive the consent cookie/);
  });
});

describe('mail (SMTP_URL, MAIL_FROM, the DKIM variables)', () => {
  /** An Ed25519 key in PKCS #8 PEM, as `openssl genpkey` writes it. */
  const DKIM_KEY = generateKeyPairSync('ed25519')
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();

  it('without SMTP_URL, writes each mail under DATA_DIR/mail and says so at start', () => {
    const { mail } = options({ DATA_DIR: '/srv/vigil' });
    expect(mail?.transport).toEqual({ kind: 'file', dir: '/srv/vigil/mail' });
    expect(mailNotice(mail ?? fail())).toMatch(
      /^Mail: not sent \(SMTP_URL is not set\); each mail is written to \/srv\/vigil\/mail\. Read the newest with: npm run mail$/,
    );
    // On this machine that is what a person running it expects: no warning.
    expect(
      startupWarnings({ mail }).filter((line) => line.includes('SMTP_URL')),
    ).toEqual([]);
  });

  it('warns at start when a public PUBLIC_URL has no SMTP_URL: no mail would reach anyone', () => {
    const { mail } = options({ PUBLIC_URL: 'https://vigil.example' });
    expect(startupWarnings({ mail })).toContainEqual(
      expect.stringMatching(/^SMTP_URL is not set: .*SMTP_URL and MAIL_FROM/),
    );
  });

  it('sends through SMTP_URL as MAIL_FROM, with links on PUBLIC_URL, and never repeats the credentials', () => {
    const { mail } = options({
      SMTP_URL: 'smtps://mailer:s3cret@smtp.example:465',
      MAIL_FROM: 'no-reply@vigil.example',
      PUBLIC_URL: 'https://vigil.example',
    });
    expect(mail).toMatchObject({
      publicUrl: 'https://vigil.example',
      from: 'no-reply@vigil.example',
      transport: {
        kind: 'smtp',
        url: 'smtps://mailer:s3cret@smtp.example:465',
      },
    });
    const notice = mailNotice(mail ?? fail());
    expect(notice).toContain('smtp.example:465');
    expect(notice).not.toMatch(/mailer|s3cret/);
  });

  it('refuses an SMTP_URL that is not smtp: or smtps:, without repeating its password', () => {
    let message = '';
    try {
      options({
        SMTP_URL: 'http://mailer:s3cret@smtp.example',
        MAIL_FROM: 'no-reply@vigil.example',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^SMTP_URL must be an smtp:\/\/ or smtps:\/\//);
    expect(message).not.toMatch(/s3cret|mailer/);
  });

  it('refuses SMTP_URL without MAIL_FROM, and a MAIL_FROM that is not an address', () => {
    expect(() => options({ SMTP_URL: 'smtp://smtp.example:587' })).toThrow(
      /^SMTP_URL is set but MAIL_FROM is not/,
    );
    expect(() =>
      options({ SMTP_URL: 'smtp://smtp.example', MAIL_FROM: 'vigil' }),
    ).toThrow(/^MAIL_FROM must be an address/);
    expect(
      options({
        SMTP_URL: 'smtp://smtp.example',
        MAIL_FROM: 'Vigil Alerts <alerts@vigil.example>',
      }).mail?.from,
    ).toBe('Vigil Alerts <alerts@vigil.example>');
  });

  it('signs with DKIM when all three variables are set, reading \\n as a line break', () => {
    const { mail } = options({
      SMTP_URL: 'smtp://smtp.example',
      MAIL_FROM: 'no-reply@vigil.example',
      DKIM_DOMAIN: 'vigil.example',
      DKIM_SELECTOR: 'mail2026',
      DKIM_PRIVATE_KEY: DKIM_KEY.replace(/\n/g, '\\n'),
    });
    expect(mail?.transport).toMatchObject({
      dkim: {
        domainName: 'vigil.example',
        keySelector: 'mail2026',
        privateKey: DKIM_KEY.trim(),
      },
    });
  });

  it('refuses some of the DKIM variables without the others, naming the missing ones, and a key that is not one', () => {
    expect(() =>
      options({ DKIM_DOMAIN: 'vigil.example', DKIM_SELECTOR: 's' }),
    ).toThrow(/DKIM_PRIVATE_KEY is not set/);
    expect(() => options({ DKIM_PRIVATE_KEY: DKIM_KEY })).toThrow(
      /DKIM_DOMAIN and DKIM_SELECTOR are not set/,
    );
    expect(() =>
      options({
        DKIM_DOMAIN: 'vigil.example',
        DKIM_SELECTOR: 's',
        DKIM_PRIVATE_KEY: 'not a key',
      }),
    ).toThrow(/^DKIM_PRIVATE_KEY must be a private key in PEM/);
  });
});

describe('VIGIL_BENCH_MAIL (no longer read: npm run bench:api builds its own service)', () => {
  it('changes nothing: mail as the other variables say, and no warning of it', () => {
    for (const value of ['none', 'queue', 'yes']) {
      const read = options({ VIGIL_BENCH_MAIL: value });
      expect(read.mail).toEqual(options({}).mail);
      expect(
        startupWarnings(read).filter((line) => line.includes('VIGIL_BENCH')),
      ).toEqual([]);
    }
  });

  it('unset, sends mail and warns about nothing of it', () => {
    const plain = options({});
    expect(plain.mail).toBeDefined();
    expect(
      startupWarnings(plain).filter((line) => line.includes('VIGIL_BENCH')),
    ).toEqual([]);
  });
});

function fail(): never {
  throw new Error('no mail options');
}

describe('the monitor (MONITOR and its variables)', () => {
  it('checks every 60 s, up to 50 at once, by default, and says so at start', () => {
    const monitor = options({}).monitor;
    expect(monitor).toMatchObject({ intervalMs: 60_000, concurrency: 50 });
    expect(monitor?.allowedNetworks).toEqual([]);
    expect(monitorNotice(monitor)).toBe('Checks: every 60 s, up to 50 at once');
  });

  it('with MONITOR=off, checks nothing, and says so at start', () => {
    for (const value of ['off', 'OFF', ' off ']) {
      const monitor = options({ MONITOR: value }).monitor;
      expect(monitor).toBeUndefined();
      expect(monitorNotice(monitor)).toMatch(/^Checks: off \(MONITOR=off\)/);
    }
  });

  it('takes an interval of at least 5 s and a concurrency of at least 1', () => {
    expect(
      options({ MONITOR_INTERVAL_SECONDS: '5', MONITOR_CONCURRENCY: '200' })
        .monitor,
    ).toMatchObject({ intervalMs: 5_000, concurrency: 200 });
    for (const [name, value] of [
      ['MONITOR_INTERVAL_SECONDS', '4'],
      ['MONITOR_INTERVAL_SECONDS', '1.5'],
      ['MONITOR_INTERVAL_SECONDS', 'soon'],
      ['MONITOR_CONCURRENCY', '0'],
      ['MONITOR_CONCURRENCY', '-3'],
      ['MONITOR', 'sometimes'],
    ] as const) {
      expect(() => options({ [name]: value }), `${name}=${value}`).toThrow(
        new RegExp(`^${name} must be`),
      );
    }
  });

  it('refuses a wrong value even on an instance that checks nothing', () => {
    expect(() =>
      options({ MONITOR: 'off', MONITOR_INTERVAL_SECONDS: '1' }),
    ).toThrow(/MONITOR_INTERVAL_SECONDS/);
  });

  it('warns at start when networks that are not public are allowed, naming them', () => {
    const env = { MONITOR_ALLOWED_NETWORKS: '10.0.0.0/8, fd00::/8' };
    expect(options(env).monitor?.allowedNetworks).toHaveLength(2);
    expect(startupWarnings(options(env))).toContainEqual(
      expect.stringMatching(
        /^MONITOR_ALLOWED_NETWORKS is set: sites in 10\.0\.0\.0\/8, fd00::\/8 are checked although they are not public/,
      ),
    );
    expect(() => options({ MONITOR_ALLOWED_NETWORKS: 'intranet' })).toThrow(
      /MONITOR_ALLOWED_NETWORKS/,
    );
  });

  it('resolves names from MONITOR_RESOLVE only when it is set, and warns', async () => {
    const monitor = options({
      MONITOR_RESOLVE: 'Site.Test=127.0.0.1, v6.test=::1',
    }).monitor;
    expect(monitor?.pins).toEqual(
      new Map([
        ['site.test', '127.0.0.1'],
        ['v6.test', '::1'],
      ]),
    );
    expect(
      startupWarnings(options({ MONITOR_RESOLVE: 'site.test=127.0.0.1' })),
    ).toContainEqual(expect.stringMatching(/^MONITOR_RESOLVE is set/));
    const resolve = pinnedResolver(monitor?.pins ?? new Map());
    expect(await resolve('SITE.test.')).toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
    expect(await resolve('v6.test')).toEqual([{ address: '::1', family: 6 }]);
    // Any other name does not exist: it is never looked up.
    await expect(resolve('example.com')).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
    for (const value of ['site.test', 'site.test=localhost', '=127.0.0.1']) {
      expect(() => options({ MONITOR_RESOLVE: value }), value).toThrow(
        /^MONITOR_RESOLVE must be name=address pairs/,
      );
    }
  });

  it("refuses MONITOR_DENIED_NETWORKS, Azure's platform address unless it is set", () => {
    expect(options({}).monitor?.deniedNetworks).toEqual([
      { network: '168.63.129.16', prefixLength: 32 },
    ]);
    expect(
      options({ MONITOR_DENIED_NETWORKS: '203.0.113.0/24' }).monitor
        ?.deniedNetworks,
    ).toEqual([{ network: '203.0.113.0', prefixLength: 24 }]);
    expect(() => options({ MONITOR_DENIED_NETWORKS: 'azure' })).toThrow(
      /^MONITOR_DENIED_NETWORKS/,
    );
  });

  it('checks the canaries MONITOR_CANARY_URLS names (two or more http: or https: URLs), and warns at start without them', () => {
    expect(options({}).monitor?.canaryUrls).toBeUndefined();
    expect(startupWarnings(options({ RECAPTCHA_SECRET: 's' }))).toEqual([
      expect.stringMatching(
        /^MONITOR_CANARY_URLS is not set: if this machine loses its network, every site it checks reads as down/,
      ),
    ]);
    const set = options({
      RECAPTCHA_SECRET: 's',
      MONITOR_CANARY_URLS:
        'https://one.example/up, http://two.example:8080\thttps://THREE.example',
    });
    expect(set.monitor?.canaryUrls).toEqual([
      'https://one.example/up',
      'http://two.example:8080/',
      'https://three.example/',
    ]);
    expect(startupWarnings(set)).toEqual([]);
    // An instance that checks nothing needs none.
    expect(
      startupWarnings(options({ RECAPTCHA_SECRET: 's', MONITOR: 'off' })),
    ).toEqual([]);
    expect(() =>
      options({ MONITOR_CANARY_URLS: 'https://one.example/' }),
    ).toThrow(/^MONITOR_CANARY_URLS needs two or more URLs/);
    for (const value of [
      'one.example, two.example',
      'ftp://a.example/ https://b.example/',
    ]) {
      expect(() => options({ MONITOR_CANARY_URLS: value }), value).toThrow(
        /^MONITOR_CANARY_URLS must list http: or https: URLs/,
      );
    }
  });

  it('asks the DNS servers MONITOR_DNS_SERVERS names, and refuses an entry that is not one', () => {
    expect(options({}).monitor?.dnsServers).toBeUndefined();
    expect(
      options({
        MONITOR_DNS_SERVERS: '192.0.2.53, 127.0.0.1:5353,[2001:db8::53]:53',
      }).monitor?.dnsServers,
    ).toEqual(['192.0.2.53', '127.0.0.1:5353', '[2001:db8::53]:53']);
    for (const value of ['dns.example', '127.0.0.1:x', '1.2.3']) {
      expect(() => options({ MONITOR_DNS_SERVERS: value }), value).toThrow(
        /^MONITOR_DNS_SERVERS must be DNS server addresses/,
      );
    }
  });

  it('names PUBLIC_URL in the checks’ User-Agent', () => {
    expect(options({ PUBLIC_URL: 'https://vigil.example' }).publicUrl).toBe(
      'https://vigil.example',
    );
    expect(monitorUserAgent('Vigil', 'https://vigil.example')).toBe(
      'Vigil-Monitor/1 (+https://vigil.example)',
    );
    // A product name is a token (RFC 9110 §10.1.5): spaces and slashes go.
    expect(monitorUserAgent('Acme Watch/2', 'https://acme.example')).toBe(
      'AcmeWatch2-Monitor/1 (+https://acme.example)',
    );
  });
});

describe('redactedUrl (what start prints of DATABASE_URL and SMTP_URL; issue 46)', () => {
  it('prints no user, password, query or fragment, where libpq and nodemailer may read credentials', () => {
    expect(
      redactedUrl(
        'postgres://vigil:s3cret@db.example:5432/vigil?sslmode=require&password=hunter2#pw=frag',
      ),
    ).toBe('postgres://db.example:5432/vigil');
    expect(
      redactedUrl('smtps://smtp.example:465/?pass=hunter2', 'SMTP_URL'),
    ).toBe('smtps://smtp.example:465/');
    expect(redactedUrl('not a url', 'SMTP_URL')).toBe(
      '(an unreadable SMTP_URL)',
    );
  });

  it('keeps a password in SMTP_URL’s query out of the notice at start and out of a refusal', () => {
    const { mail } = options({
      SMTP_URL: 'smtps://smtp.example:465?user=mailer&pass=hunter2',
      MAIL_FROM: 'no-reply@vigil.example',
      PUBLIC_URL: 'https://vigil.example',
    });
    const notice = mailNotice(mail ?? fail());
    expect(notice).toContain('smtp.example:465');
    expect(notice).not.toMatch(/mailer|hunter2/);
    expect(() =>
      options({
        SMTP_URL: 'http://smtp.example/?password=hunter2',
        MAIL_FROM: 'no-reply@vigil.example',
      }),
    ).toThrow(/^SMTP_URL must be an smtp:\/\/ or smtps:\/\/(?![\s\S]*hunter2)/);
  });
});

describe('PUBLIC_URL and the cookies (ADR-0109)', () => {
  it('says loudly at start when a public PUBLIC_URL is plain http, and not for https or localhost', () => {
    const warned = (PUBLIC_URL: string) =>
      startupWarnings(options({ PUBLIC_URL, RECAPTCHA_SECRET: 's' })).filter(
        (line) => line.startsWith('PUBLIC_URL is'),
      );
    expect(warned('http://vigil.example')).toEqual([
      expect.stringMatching(/plain http on a public host.*Secure/),
    ]);
    expect(warned('https://vigil.example')).toEqual([]);
    expect(warned('http://localhost:8080')).toEqual([]);
  });

  it('passes COOKIE_DOMAIN to the service, which clears a planted login cookie with it', () => {
    expect(options({ COOKIE_DOMAIN: '.vigil.example' }).cookieDomain).toBe(
      '.vigil.example',
    );
    expect(options({}).cookieDomain).toBeUndefined();
  });
});

describe('the runtime', () => {
  it('is named at every start', () => {
    expect(runtimeNotice('v26.10.0')).toEqual({
      notice: 'Runtime: Node.js v26.10.0',
    });
    expect(runtimeNotice('v24.0.0')).toEqual({
      notice: 'Runtime: Node.js v24.0.0',
    });
  });

  it.each(['v20.20.2', 'v22.19.0', 'v23.11.1'])(
    'warns on %s, older than the 24 package.json "engines" names',
    (version) => {
      const { notice, warning } = runtimeNotice(version);
      expect(notice).toBe(`Runtime: Node.js ${version}`);
      expect(
        warning?.startsWith(`Node.js ${version} is older than the 24`),
      ).toBe(true);
    },
  );
});
