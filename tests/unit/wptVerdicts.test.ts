// @vitest-environment node
/**
 * One verdict (docs/url-and-email-rules.md): over every Web Platform Tests
 * input (tests/oracles/wpt/), the page's rules and the local API's rules
 * each give the documented rule's verdict, as the independent oracles of
 * tests/oracles/urlOracle.ts state it (whatwg-url, tr46, validator), and
 * the page's rules bundled for browsers (run here in a bare `node:vm`
 * context, without `URL`) give the same verdicts as in Node. Runs in Node,
 * as the server does; the browser tests run the same bundle in each engine.
 */
import vm from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { readSignUp } from '../../server/signUp/signUpRules';
import { checkHostName } from '../../common/domainName';
import {
  checkSiteUrl as checkSiteUrlWith,
  messages,
} from '../../common/validation';
import {
  oracleEmail,
  oracleSiteUrl,
  type OracleVerdict,
} from '../oracles/urlOracle';
import {
  browserVerdictScript,
  nodeVerdicts,
  UNICODE_EDGE_URLS,
  verdictCases,
  wptData,
  type Verdict,
  type VerdictCase,
} from '../oracles/verdicts';

// The site-URL rule as the API runs it: with the UTS #46 host rule
// (common/domainName.ts) that the page loads for an internationalised host.
const checkSiteUrl = (raw: string) => checkSiteUrlWith(raw, checkHostName);

const cases = verdictCases();
const page = nodeVerdicts(cases);
const tally = { disagreements: 0 };

/** A body the API accepts, but for the one field the case is about. */
function apiBody(kind: VerdictCase['kind'], value: string) {
  return {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    'g-recaptcha-response': 'captcha-token',
    newsletter: '1',
    url: 'https://example.com',
    [kind]: value,
  };
}

/** The documented rule's verdict, from the oracles over WPT's suites. */
const oracleOf = ({ input, kind }: VerdictCase) =>
  kind === 'url' ? oracleSiteUrl(input) : oracleEmail(input);

/**
 * The API's verdict on an input, the other fields valid: sent as a
 * conforming page sends it, an accepted URL with its protocol (R3.3, as the
 * oracle writes it), anything else as typed, by hand.
 */
function apiAccepts(verdictCase: VerdictCase, oracle: OracleVerdict): boolean {
  const sent = oracle.url ?? verdictCase.input;
  const answer = readSignUp(apiBody(verdictCase.kind, sent));
  return !('success' in answer);
}

// The oracle's reasons that name a problem with its own message; for
// "format" (and the protocol and credentials cases it reads differently),
// the rule's order of checks decides the message.
const MESSAGE_OF_REASON: Record<string, string> = {
  empty: messages.urlRequired,
  ip: messages.urlIp,
  local: messages.urlLocal,
  invisible: messages.urlInvisible,
  lookalike: messages.urlLookalike,
};

const printable = (input: string) =>
  JSON.stringify(input).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u{${c.codePointAt(0)?.toString(16)}}`,
  );

afterAll(() => {
  const urls = new Set(wptData.urls().map((c) => c.input)).size;
  const hosts = new Set(wptData.hosts().map((c) => c.input)).size;
  const emails = new Set(wptData.emails().map((c) => c.input)).size;
  console.log(
    `WPT verdicts: ${urls} URL inputs, ${hosts} hosts, ${emails} e-mails, ${UNICODE_EDGE_URLS.length} Unicode edges, ${tally.disagreements} disagreements (node)`,
  );
});

describe('the WPT cases', () => {
  it('hold every input of the three files, and the Unicode edges', () => {
    expect(cases.filter((c) => c.source === 'urltestdata')).toHaveLength(
      new Set(wptData.urls().map((c) => c.input)).size,
    );
    const hosts = new Set(wptData.hosts().map((c) => c.input)).size;
    expect(cases.filter((c) => c.source === 'toascii host')).toHaveLength(
      hosts,
    );
    expect(cases.filter((c) => c.source === 'toascii url')).toHaveLength(hosts);
    expect(cases.filter((c) => c.kind === 'email')).toHaveLength(
      new Set(wptData.emails().map((c) => c.input)).size,
    );
    expect(cases.filter((c) => c.source === 'unicode edge')).toHaveLength(
      UNICODE_EDGE_URLS.length,
    );
    // The data is what the files' README says it is.
    expect(cases.length).toBeGreaterThan(900);
  });
});

// Page and API are each judged against the oracles (whatwg-url, tr46,
// validator and the HTML standard's grammar, over WPT's inputs), never
// against each other: a rule they shared could not be caught wrong that way.
// A refused URL must also have the message its oracle's reason names.
describe('the page and the API each give the documented verdict', () => {
  it.each(cases.map((c, i) => [printable(c.input), c, page[i]] as const))(
    '%s',
    (_title, verdictCase, verdict) => {
      const oracle = oracleOf(verdictCase);
      const expected = oracle.accept;
      const api = apiAccepts(verdictCase, oracle);
      if (api !== expected || verdict?.ok !== expected) {
        tally.disagreements += 1;
      }
      expect(api, `API, ${verdictCase.source}`).toBe(expected);
      expect(verdict?.ok, `page, ${oracle.reason}`).toBe(expected);
      const kind = oracle.reason.split(':')[0] ?? '';
      const message =
        verdictCase.kind === 'url' ? MESSAGE_OF_REASON[kind] : undefined;
      if (message !== undefined) expect(verdict?.message).toBe(message);
    },
  );
});

describe('the bundle for browsers agrees with Node', () => {
  it('gives the same verdicts in a bare context without URL or a DOM', async () => {
    const script = await browserVerdictScript();
    expect(script).toMatch(/^[\x20-\x7e\n\t]*$/); // ASCII, any page's charset
    const context = vm.createContext({});
    vm.runInContext(script, context);
    const json = vm.runInContext(
      `JSON.stringify(__vigilVerdicts(${JSON.stringify(cases)}))`,
      context,
    ) as string;
    const bundled = JSON.parse(json) as Verdict[];
    const differing = bundled.filter(
      (verdict, i) => JSON.stringify(verdict) !== JSON.stringify(page[i]),
    );
    tally.disagreements += differing.length;
    expect(differing).toEqual([]);
    expect(bundled).toHaveLength(cases.length);
  });
});

describe('the rule never accepts what the URL Standard refuses', () => {
  // toascii.json: `output` null means the standard's host parser fails; an
  // accepted host is the one the standard computes, in ASCII.
  it.each(wptData.hosts().map((c) => [printable(c.input), c] as const))(
    '%s',
    (_title, { input, output }) => {
      if (checkSiteUrl(`http://${input}/`).ok) {
        expect(output).not.toBeNull();
        const host = checkHostName(input);
        expect(host.ok && host.ascii).toBe(output?.replace(/\.$/, ''));
      }
      // Typed alone, the host is trimmed first (" lookout.net").
      if (checkSiteUrl(input).ok && input === input.trim()) {
        expect(output).not.toBeNull();
      }
    },
  );

  // urltestdata.json: a failure that does not come from the base (there is
  // none, or the input is an absolute http(s) URL with an authority).
  it('accepts no URL test input the standard fails on', () => {
    const failures = wptData
      .urls()
      .filter(
        (c) => c.failure && (c.base === null || /^https?:\/\//i.test(c.input)),
      );
    expect(failures.length).toBeGreaterThan(100);
    const accepted = failures.filter((c) => checkSiteUrl(c.input).ok);
    expect(accepted.map((c) => c.input)).toEqual([]);
  });
});

// Where the rule (trimmed, the HTML standard's valid e-mail address, a dot
// in the domain) and what wpt expects of browsers' <input type=email> part.
const EMAIL_DEPARTURES: Record<string, string> = {
  'a@a': 'a dot in the domain (name@localhost cannot get our mail)',
  'a@123': 'a dot in the domain',
  'a@ñ':
    "the HTML standard's grammar is ASCII; wpt expects browsers to punycode the domain first",
  'ñ@ñ': "the HTML standard's grammar is ASCII",
  'a@[::1]': "brackets are not in the HTML standard's grammar",
  'a@123.123.123.123.123':
    "the HTML standard's grammar takes labels of digits; wpt expects the URL host parser, which reads a name ending in a number as an IPv4 address",
};

describe('each e-mail verdict follows the documented rule', () => {
  it.each(wptData.emails().map((c) => [c.input, c] as const))(
    '%s',
    (_title, { input, valid }) => {
      const verdict = page.find((v) => v.kind === 'email' && v.input === input);
      expect(verdict?.ok).toBe(oracleEmail(input).accept);
      if (!verdict?.ok) expect(verdict?.message).toBe(messages.emailInvalid);
      const departure = EMAIL_DEPARTURES[input];
      expect(verdict?.ok, departure ?? 'as wpt expects').toBe(
        departure === undefined ? valid : !valid,
      );
    },
  );
});
