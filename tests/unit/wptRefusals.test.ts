// @vitest-environment node
/**
 * Every refusal has a reason a visitor would accept (issue 27,
 * docs/url-and-email-rules.md, "What the rule refuses that browsers
 * accept"): each host the Web Platform Tests accept (tests/oracles/wpt/:
 * every toascii.json host with an ASCII form, typed as `http://<host>/`,
 * and every urltestdata.json http(s) URL the parser reads, with the host it
 * names) is accepted by the site-URL rule, or refused in one of the
 * categories that document names, with that category's message. The test
 * prints how many fall in each category.
 *
 * Each category is read here from the Web Platform Tests' own results (the
 * host, port and credentials the URL parser gives) and the text as typed,
 * as the document words it, not from the rule's code.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { toASCII, toUnicode } from 'tr46';
import { messages } from '../../common/validation';
import { pageVerdict } from '../oracles/pageVerdict';
import { wptData } from '../oracles/verdicts';

/** A URL the suite accepts, with what its parser read from it. */
interface AcceptedUrl {
  source: 'toascii' | 'urltestdata';
  /** The URL as typed into the field. */
  input: string;
  /** The suite's host: lower case, ASCII (Punycode), IPv6 in brackets. */
  host: string;
  port: string;
  username: string;
  password: string;
}

const toasciiAccepted: AcceptedUrl[] = wptData
  .hosts()
  .flatMap(({ input, output }) =>
    output === null
      ? []
      : [
          {
            source: 'toascii' as const,
            input: `http://${input}/`,
            host: output,
            port: '',
            username: '',
            password: '',
          },
        ],
  );

// As in wptVerdicts.test.ts: an http(s) URL the parser reads, that names
// its own host (no base, or an absolute URL with an authority).
const urltestdataAccepted: AcceptedUrl[] = wptData
  .urls()
  .filter(
    (c) =>
      !c.failure &&
      (c.protocol === 'http:' || c.protocol === 'https:') &&
      (c.base === null || /^https?:\/\//i.test(c.input)),
  )
  .map((c) => ({
    source: 'urltestdata' as const,
    input: c.input,
    host: c.hostname ?? '',
    port: c.port ?? '',
    username: c.username ?? '',
    password: c.password ?? '',
  }));

const accepted = [
  ...new Map(
    [...toasciiAccepted, ...urltestdataAccepted].map((c) => [c.input, c]),
  ).values(),
];

/** The host without the one trailing dot of the absolute form. */
const nameOf = (host: string) =>
  host.endsWith('.') ? host.slice(0, -1) : host;
/** The typed authority: after the scheme and `//`, to `/`, `?` or `#`. */
const typedAuthority = (input: string) =>
  input
    .trim()
    .replace(/^[a-z][a-z\d+.-]*:/i, '')
    .replace(/^\/\//, '')
    .split(/[/?#]/, 1)[0] ?? '';
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const STRICT = {
  checkBidi: true,
  checkJoiners: true,
  useSTD3ASCIIRules: true,
  verifyDNSLength: true,
} as const;

/** A refusal the product makes where the URL Standard accepts. */
interface Category {
  name: string;
  message: string;
  holds: (c: AcceptedUrl) => boolean;
}

// The categories of docs/url-and-email-rules.md, in its order.
const CATEGORIES: Category[] = [
  {
    name: 'whitespace, a control character or a byte-order mark inside',
    message: messages.urlInvalid,
    holds: (c) => /[\s\p{Cc}]/u.test(c.input.trim()),
  },
  {
    name: 'http: or https: without //',
    message: messages.urlInvalid,
    holds: (c) => /^https?:(?!\/\/)/i.test(c.input.trim()),
  },
  {
    name: 'a user name, a password or an @ before the host',
    message: messages.urlCredentials,
    holds: (c) =>
      c.username !== '' ||
      c.password !== '' ||
      typedAuthority(c.input).includes('@'),
  },
  {
    name: 'an invisible character in the host, or a joiner where IDNA allows none',
    message: messages.urlInvisible,
    holds: (c) => {
      const authority = typedAuthority(c.input);
      return (
        INVISIBLE.test(authority) ||
        INVISIBLE.test(authority.normalize('NFKC')) ||
        INVISIBLE.test(toUnicode(c.host).domain)
      );
    },
  },
  {
    name: 'a full-width or look-alike form of URL punctuation in the host',
    message: messages.urlLookalike,
    holds: (c) =>
      [...typedAuthority(c.input)].some(
        (char) =>
          /[^\0-\x7f]/.test(char) &&
          !'。．｡'.includes(char) &&
          /[!-/:-@[-`{-~]/.test(char.normalize('NFKC')),
      ),
  },
  {
    name: 'a % escape or a backslash in the host',
    message: messages.urlInvalid,
    holds: (c) => /[%\\]/.test(typedAuthority(c.input)),
  },
  {
    name: 'an IP address',
    message: messages.urlIp,
    holds: (c) => c.host.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(c.host),
  },
  {
    name: 'localhost or a name under it',
    message: messages.urlLocal,
    holds: (c) =>
      nameOf(c.host) === 'localhost' || nameOf(c.host).endsWith('.localhost'),
  },
  {
    name: 'one label: no top-level domain',
    message: messages.urlInvalid,
    holds: (c) => !nameOf(c.host).includes('.'),
  },
  {
    name: 'an empty label',
    message: messages.urlInvalid,
    holds: (c) => nameOf(c.host).split('.').includes(''),
  },
  {
    name: 'a top-level domain neither alphabetic nor an A-label',
    message: messages.urlInvalid,
    holds: (c) => {
      const tld = nameOf(c.host).split('.').at(-1) ?? '';
      const decoded = toUnicode(tld, STRICT);
      const aLabel =
        tld.startsWith('xn--') && !decoded.error && decoded.domain !== tld;
      return !/^[a-z]{2,63}$/.test(tld) && !aLabel;
    },
  },
  {
    name: 'a hyphen at either end of a label, in its A-label or its U-label',
    message: messages.urlInvalid,
    holds: (c) =>
      [
        ...nameOf(c.host).split('.'),
        ...toUnicode(nameOf(c.host)).domain.split('.'),
      ].some((label) => label.startsWith('-') || label.endsWith('-')),
  },
  {
    name: 'a character other than letters, digits and hyphens (RFC 1123)',
    message: messages.urlInvalid,
    holds: (c) =>
      nameOf(c.host)
        .split('.')
        .some((label) => !/^[a-z\d-]*$/.test(label)),
  },
  {
    name: 'labels of more than 63 octets, a name of more than 253',
    message: messages.urlInvalid,
    holds: (c) =>
      nameOf(c.host).length > 253 ||
      nameOf(c.host)
        .split('.')
        .some((label) => label.length > 63),
  },
  {
    name: 'an A-label that is no Punycode of a valid U-label, or not written as Punycode writes it',
    message: messages.urlInvalid,
    holds: (c) =>
      nameOf(c.host)
        .split('.')
        .filter((label) => label.startsWith('xn--'))
        .some((label) => {
          const { domain, error } = toUnicode(label, STRICT);
          return error || toASCII(domain) !== label;
        }),
  },
  {
    name: 'a port that is not 1–65535',
    message: messages.urlInvalid,
    holds: (c) => {
      const authority = typedAuthority(c.input);
      const colon = authority.lastIndexOf(':');
      const port = colon === -1 ? '' : authority.slice(colon + 1);
      return !/^\d*$/.test(port) || (port !== '' && Number(port) === 0);
    },
  },
  {
    name: '< or > anywhere',
    message: messages.urlInvalid,
    holds: (c) => /[<>]/.test(c.input),
  },
];

const counts = new Map<string, number>([
  ['accepted', 0],
  ...CATEGORIES.map(({ name }) => [name, 0] as const),
]);

afterAll(() => {
  console.log(
    `WPT hosts the URL Standard accepts: ${accepted.length} (${toasciiAccepted.length} toascii, ${urltestdataAccepted.length} urltestdata)\n` +
      [...counts].map(([name, count]) => `  ${count}\t${name}`).join('\n'),
  );
});

const printable = (input: string) =>
  JSON.stringify(input).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u{${c.codePointAt(0)?.toString(16)}}`,
  );

describe('every host the Web Platform Tests accept', () => {
  it('are many, from both files', () => {
    expect(toasciiAccepted.length).toBeGreaterThan(50);
    expect(urltestdataAccepted.length).toBeGreaterThan(150);
  });

  it.each(accepted.map((c) => [printable(c.input), c] as const))(
    '%s is accepted, or refused in a named category with its message',
    (_title, c) => {
      const verdict = pageVerdict({
        input: c.input,
        kind: 'url',
        source: c.source,
      });
      if (verdict.ok) {
        counts.set('accepted', (counts.get('accepted') ?? 0) + 1);
        return;
      }
      const category = CATEGORIES.find(
        (cat) => cat.holds(c) && cat.message === verdict.message,
      );
      expect(category, verdict.message).toBeDefined();
      if (category) {
        counts.set(category.name, (counts.get(category.name) ?? 0) + 1);
      }
    },
  );
});

describe('names that need a joiner (RFC 5892 Appendix A)', () => {
  it.each([
    // WPT toascii.json: Sinhala "Sri", a ZWJ after the virama (A.2).
    ['ශ්\u200dරී.com', 'xn--10cl1a0b660p.com'],
    // Persian, a ZWNJ between joining types D and R (A.1).
    ['نامه\u200cای.com', 'xn--mgba3gch31f060k.com'],
  ])(
    '%s is an entry of the suite, and accepted in both forms',
    (name, ascii) => {
      expect(wptData.hosts()).toContainEqual({ input: name, output: ascii });
      for (const typed of [
        name,
        `http://${name}/`,
        ascii,
        `https://${ascii}/`,
      ]) {
        expect(
          pageVerdict({ input: typed, kind: 'url', source: 'issue 27' }),
        ).toEqual({ input: typed, kind: 'url', ok: true });
      }
    },
  );
});
