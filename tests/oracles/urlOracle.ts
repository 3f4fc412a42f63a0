/**
 * Independent oracles for the sign-up form's site-URL and e-mail rules
 * (R5.2 to R5.7 in docs/requirements.md; ADR-0013, ADR-0015 and ADR-0016).
 *
 * They are built only from well-kept code — `validator` (`isURL`, `isFQDN`,
 * `isIP`, `isEmail`), the WHATWG URL Standard's reference parser
 * (`whatwg-url`) and its UTS #46 (`tr46`) — plus the product's decisions,
 * written down here a second time and in a different way. The parser is the
 * pinned JavaScript one, not the runtime's `URL`, so the oracle's verdict does
 * not depend on the Node version either (docs/url-and-email-rules.md). This
 * module must never import `common/validation.ts` or `common/domainName.ts`: the
 * property tests compare the two, and an oracle that shares code with the
 * rules under test proves nothing. It shares none: the rule runs `tr46` as
 * the URL Standard's "domain to ASCII" does on the whole host; the oracle
 * decodes each label with it and checks the parser's result with validator.
 *
 * Where the product deliberately departs from what validator or the parser
 * would say on their own, the oracle does the same, says why in a comment,
 * and lists the departure in {@link KEPT_DISAGREEMENTS}.
 */
import { toASCII, toUnicode } from 'tr46';
import validator from 'validator';
import { URL as StandardUrl } from 'whatwg-url';

/** The oracle's verdict: `url` is what the form would send when accepted. */
export interface OracleVerdict {
  accept: boolean;
  reason: string;
  url?: string;
}

/** A place where the product knowingly differs from validator or the parser. */
export interface KeptDisagreement {
  rule: 'url' | 'email';
  /** Whose verdict the product departs from. */
  from: 'validator' | 'parser' | 'html';
  example: string;
  reason: string;
}

/**
 * Every deliberate departure from what the well-kept code says on its own,
 * one line of reason each. The tests print them and check each example.
 */
export const KEPT_DISAGREEMENTS: readonly KeptDisagreement[] = [
  {
    rule: 'url',
    from: 'validator',
    example: 'example.com.',
    reason:
      'a trailing dot is the absolute form of the same name (RFC 1034 §3.1); validator refuses it by default',
  },
  {
    rule: 'url',
    from: 'validator',
    example: 'ｅｘａｍｐｌｅ．ｃｏｍ',
    reason:
      'full-width host characters are mapped to ASCII by UTS #46, as browsers do for IME typing; validator refuses them',
  },
  {
    rule: 'url',
    from: 'validator',
    example: '例子。中国',
    reason:
      'U+3002, U+FF0E and U+FF61 are label dots (RFC 3490 §3.1, UTS #46); validator splits labels only at "."',
  },
  {
    rule: 'url',
    from: 'validator',
    example: 'example.com/\u0001',
    reason:
      'control characters are refused like whitespace; validator only refuses whitespace, "<" and ">"',
  },
  {
    rule: 'url',
    from: 'validator',
    example: `example.com/${'a'.repeat(2100)}`,
    reason:
      "isURL's 2,084-character cap is Internet Explorer's, not a URL rule; the rule sets none (the API's body limit bounds it)",
  },
  {
    rule: 'url',
    from: 'validator',
    example: `${'a.'.repeat(126)}com`,
    reason:
      'a domain name has at most 253 characters (RFC 1035 §2.3.4); isFQDN checks only each label',
  },
  {
    rule: 'url',
    from: 'validator',
    example: 'example.xn1a',
    reason:
      'a TLD is alphabetic or an xn-- A-label (RFC 3696 §2); isFQDN lets any "xn…" TLD with digits through',
  },
  {
    rule: 'url',
    from: 'parser',
    example: 'exa\u00admple.com',
    reason:
      'invisible characters in the host are refused; UTS #46 deletes a soft hyphen, and which ones it deletes depends on its version',
  },
  {
    rule: 'url',
    from: 'parser',
    example: 'ｅｘａｍｐｌｅ－ｓｉｔｅ.com',
    reason:
      'compatibility forms of URL punctuation in the host are refused; UTS #46 maps the full-width hyphen to "-"',
  },
  {
    rule: 'url',
    from: 'parser',
    example: 'xn--bcher--3ya.de',
    reason:
      'a label must not end with a hyphen, as a U-label either (RFC 5891 §4.2.3.1); the parser does not check hyphens',
  },
  {
    rule: 'email',
    from: 'html',
    example: '\u00a0name@example.com\u3000',
    reason:
      'R5.2 says "trimmed": String#trim drops Unicode spaces too; HTML sanitization strips only ASCII whitespace',
  },
  {
    rule: 'email',
    from: 'html',
    example: 'name@exam\nple.com',
    reason:
      'a newline inside is refused; HTML sanitization deletes it, but prefill and the API get the raw value',
  },
  {
    rule: 'email',
    from: 'html',
    example: 'name@localhost',
    reason:
      'DECISIONS: a dot in the domain; the HTML standard accepts a one-label domain',
  },
];

const accept = (reason: string, url?: string): OracleVerdict => ({
  accept: true,
  reason,
  ...(url !== undefined && { url }),
});
const reject = (reason: string): OracleVerdict => ({ accept: false, reason });

// ---------------------------------------------------------------------------
// Site URL
// ---------------------------------------------------------------------------

// RFC 3986 Appendix B: the reference regular expression that splits any URI
// reference into scheme, authority, path, query and fragment. It reads the
// string as typed; the WHATWG parser below reads what a browser would make
// of it. The oracle wants both readings to be acceptable.
const RFC3986_PARTS =
  /^(?:(?<scheme>[^:/?#]+):)?(?:\/\/(?<authority>[^/?#]*))?(?<path>[^?#]*)(?:\?(?<query>[^#]*))?(?:#(?<fragment>.*))?$/s;
// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
const RFC3986_SCHEME = /^[a-z][a-z0-9+.-]*$/i;

interface UriParts {
  scheme: string | undefined;
  authority: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
}

function splitUri(uri: string): UriParts {
  const groups = RFC3986_PARTS.exec(uri)?.groups ?? {};
  return {
    scheme: groups.scheme,
    authority: groups.authority,
    path: groups.path ?? '',
    query: groups.query,
    fragment: groups.fragment,
  };
}

/**
 * The protocol the visitor typed, or `undefined` when there is none and
 * `https://` is to be prepended. A scheme followed by `//` is a protocol.
 * Without `//`, `name:` is read the way a person means it: `example.com:8080`
 * is a host and a port, `user:pass@example.com` a user and a password, and
 * anything else (`javascript:`, `mailto:`, `data:`, `http:example.com`) an
 * opaque scheme.
 */
export function typedProtocol(typed: string): string | undefined {
  const { scheme, authority } = splitUri(typed);
  if (scheme === undefined || !RFC3986_SCHEME.test(scheme)) return undefined;
  if (authority !== undefined) return scheme;
  const rest = typed.slice(scheme.length + 1);
  if (/^\d*(?:[/?#]|$)/.test(rest)) return undefined; // host:port
  if (/^[^/?#]*@/.test(rest)) return undefined; // user:password@host
  return scheme;
}

// validator's isURL judges the URL as it will be sent: its structure, port,
// "<" and ">", and the characters of the host as typed. The host's name
// itself is judged below with isFQDN on the parser's punycode form, so here
// no TLD is required.
const AS_TYPED: validator.IsURLOptions = {
  protocols: ['http', 'https'],
  require_protocol: true,
  require_valid_protocol: true,
  require_host: true,
  require_tld: false,
  allow_underscores: false,
  // Kept: a trailing dot is the absolute form of the same name.
  allow_trailing_dot: true,
  allow_protocol_relative_urls: false,
  allow_fragments: true,
  allow_query_components: true,
  disallow_auth: true,
  // Kept: 2,084 is Internet Explorer's limit, not a URL rule.
  validate_length: false,
};

// isFQDN on the parser's hostname (lower case, punycode, percent-decoded).
const PUNYCODE_NAME: validator.IsFQDNOptions = {
  require_tld: true,
  allow_underscores: false,
  allow_trailing_dot: true,
  allow_numeric_tld: false,
  allow_wildcard: false,
};

// Kept: UTS #46, which the WHATWG parser and every browser apply to a host,
// maps compatibility forms (full-width letters, digits and dots) to ASCII
// and treats the ideographic full stops as dots (RFC 3490 §3.1); validator
// knows neither. The typed authority is shown to validator mapped the same
// way. Only the authority: in a path, "＜" is just a character.
function asUts46WouldRead(authority: string): string {
  return authority.normalize('NFKC').replace(/[\u3002\uff0e\uff61]/g, '.');
}

// Kept (docs/url-and-email-rules.md): what the host may not hold as typed,
// whatever a parser would make of it. Invisible characters: format
// characters and default-ignorable code points.
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
// Kept: characters whose NFKC form holds URL punctuation (RFC 3986 §2.2
// delimiters and the rest of ASCII's punctuation), bar the label dots of
// RFC 3490 §3.1 ("。", "．", "｡"); a second reading, character by character.
function isPunctuationLookalike(char: string): boolean {
  if (char.charCodeAt(0) < 0x80 || '。．｡'.includes(char)) return false;
  return [...char.normalize('NFKC')].some(
    (c) =>
      c === '。' ||
      (c.charCodeAt(0) < 0x80 && !/[a-z0-9]/i.test(c) && c.trim() !== ''),
  );
}
// Kept: a U-label has no hyphen at either end (RFC 5891 §4.2.3.1), which
// the parser does not check.
const U_LABEL = /^(?!-).+(?<!-)$/u;
// Zero-width joiner and non-joiner: in the host, IDNA allows them in the
// contexts of RFC 5892 Appendix A (CONTEXTJ); elsewhere they are invisible.
const JOINER = /[\u200c\u200d]/u;

/**
 * Kept: a joiner in a label of the typed host (read as UTS #46 reads it,
 * NFKC and the label dots; an A-label decoded) that tr46's CheckJoiners
 * refuses where the label is otherwise one tr46 takes: the product's
 * invisible-character message, not the parser's failure.
 */
function joinerOutOfContext(host: string): boolean {
  return asUts46WouldRead(host)
    .split('.')
    .map((label) =>
      /^xn--/i.test(label) ? toUnicode(label.toLowerCase()).domain : label,
    )
    .some(
      (label) =>
        JOINER.test(label) &&
        !toUnicode(label).error &&
        toUnicode(label, { checkJoiners: true }).error,
    );
}

/**
 * The oracle for the site-URL field: trimmed; `https://` prepended when no
 * protocol was typed; `http:`/`https:` only, with `//` and a host; no
 * credentials; nothing in the host that a parser could read two ways
 * (invisible characters, but for a zero-width joiner or non-joiner where
 * RFC 5892 Appendix A allows it; compatibility forms of punctuation, `%`
 * escapes, backslashes); the host neither an IP address in any notation (decided by
 * `isIP` on the standard parser's host) nor `localhost` nor a name under it,
 * and a domain name with a TLD (`isFQDN` on the punycode host, tr46 on its
 * labels).
 */
export function oracleSiteUrl(raw: string): OracleVerdict {
  const typed = raw.trim();
  if (typed === '') return reject('empty');
  // The parser drops tabs and newlines silently; the product refuses any
  // whitespace inside (DECISIONS: a visitor did not mean one address).
  // Kept: control characters too, which the parser strips at the ends and
  // percent-encodes inside, and validator lets through.
  if (/[\s\p{Cc}]/u.test(typed)) {
    return reject('format: whitespace or a control character inside');
  }

  const protocol = typedProtocol(typed);
  const url = protocol === undefined ? `https://${typed}` : typed;
  const parts = splitUri(url);
  const scheme = parts.scheme?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') {
    return reject(`protocol: ${scheme ?? '(none)'}, not http or https`);
  }
  if (parts.authority === undefined) {
    return reject('format: no "//" after http(s):');
  }
  if (parts.authority === '') return reject('format: no host after "//"');
  // The parser forgets an empty user name and password ("https://@host");
  // the "@" as typed still means credentials.
  if (parts.authority.includes('@')) return reject('credentials: "@" typed');
  const authority = parts.authority;
  // The host as typed runs to the first ":" (a port after it); joiners in
  // it are judged below, by IDNA's contexts. In brackets nothing is a host.
  const typedHost = authority.startsWith('[')
    ? ''
    : (authority.split(':')[0] ?? '');
  const withoutHostJoiners =
    typedHost.replaceAll('\u200c', '').replaceAll('\u200d', '') +
    authority.slice(typedHost.length);
  if (
    INVISIBLE.test(withoutHostJoiners) ||
    INVISIBLE.test(withoutHostJoiners.normalize('NFKC'))
  ) {
    return reject('invisible: an invisible character in the host');
  }
  if ([...authority].some(isPunctuationLookalike)) {
    return reject('lookalike: a compatibility form of punctuation in the host');
  }
  // Kept: the parser decodes "%" escapes and reads "\\" as "/"; the typed
  // host must need neither.
  if (/[%\\]/.test(authority)) {
    return reject('format: "%" or "\\" in the host as typed');
  }
  if (joinerOutOfContext(typedHost)) {
    return reject('invisible: a joiner outside the contexts IDNA allows');
  }

  let parsed: StandardUrl;
  try {
    parsed = new StandardUrl(url);
  } catch {
    return reject('format: the WHATWG URL parser refuses it');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return reject('credentials: user name or password');
  }

  // The parser has rewritten every IPv4 notation (127.1, 2130706433,
  // 0x7f.0.0.1, 0177.0.0.1, full-width digits) to dotted decimal and every
  // IPv6 one to its compressed form in brackets.
  const host = parsed.hostname;
  if (host.startsWith('[') && host.endsWith(']')) {
    return validator.isIP(host.slice(1, -1), 6)
      ? reject(`ip: IPv6 address ${host}`)
      : reject(`format: ${host} is bracketed but no IPv6 address`);
  }
  if (validator.isIP(host, 4)) return reject(`ip: IPv4 address ${host}`);

  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return reject(`local: ${host} is localhost or under it`);
  }

  const asTyped =
    `${parts.scheme ?? ''}://${asUts46WouldRead(authority)}` +
    `${parts.path}${parts.query === undefined ? '' : `?${parts.query}`}` +
    `${parts.fragment === undefined ? '' : `#${parts.fragment}`}`;
  if (!validator.isURL(asTyped, AS_TYPED)) {
    return reject('format: validator isURL refuses it as typed');
  }

  if (!validator.isFQDN(host, PUNYCODE_NAME)) {
    return reject(`format: isFQDN refuses the host ${host}`);
  }
  // Kept: isFQDN checks each label's 63 characters but not the name's 253.
  if (name.length > 253) {
    return reject('format: host longer than 253 characters');
  }
  // Kept: every label is an A-label that tr46 decodes strictly (valid
  // Punycode, Bidi Rule, joiners, STD3 characters) and re-encodes to
  // itself, or plain LDH; and its U-label passes U_LABEL.
  for (const label of name.split('.')) {
    const { domain, error } = toUnicode(label, {
      checkBidi: true,
      checkJoiners: true,
      useSTD3ASCIIRules: true,
    });
    if (error || toASCII(domain) !== label || !U_LABEL.test(domain)) {
      return reject(`format: ${label} is no valid label`);
    }
  }
  // tr46 checks the Bidi Rule label by label above; the rule applies to the
  // whole name once any label is right-to-left.
  if (toASCII(name, { checkBidi: true }) === null) {
    return reject(`format: ${name} breaks the Bidi Rule`);
  }
  // Kept: the TLD is alphabetic, ASCII letters, or an A-label of a
  // U-label (isFQDN lets any "xn…" TLD through).
  const tld = toUnicode(name.slice(name.lastIndexOf('.') + 1)).domain;
  if (!/^(?:[a-z]{2,}|.*[^\0-\x7f].*)$/u.test(tld)) {
    return reject(`format: TLD ${tld} is not alphabetic`);
  }
  return accept(
    protocol === undefined ? 'valid; https:// prepended' : 'valid',
    url,
  );
}

// ---------------------------------------------------------------------------
// E-mail
// ---------------------------------------------------------------------------

// HTML Living Standard, 4.10.5.1.5 "E-mail state": a valid e-mail address is
//   1*( atext / "." ) "@" label *( "." label )
//   label = let-dig [ [ ldh-str ] let-dig ]  ; at most 63 characters
// with atext from RFC 5322 §3.2.3 and let-dig, ldh-str from RFC 1034 §3.5.
// Written here from that grammar, piece by piece.
const ATEXT = "A-Za-z0-9!#$%&'*+/=?^_`{|}~-";
const LET_DIG = 'A-Za-z0-9';
const LABEL = `[${LET_DIG}](?:[${LET_DIG}-]{0,61}[${LET_DIG}])?`;

/** The HTML standard's "valid e-mail address", nothing more. */
export const HTML_VALID_EMAIL = new RegExp(
  `^[.${ATEXT}]+@${LABEL}(?:\\.${LABEL})*$`,
);

const ATEXT_CHARS = new Set(
  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~-",
);
const LET_DIG_CHARS = new Set(
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
);

/**
 * The same grammar walked by hand, without a regular expression: a second
 * reading of the standard that the tests hold against {@link HTML_VALID_EMAIL}.
 */
export function isHtmlEmailByGrammar(value: string): boolean {
  const at = value.indexOf('@');
  if (at < 1 || value.includes('@', at + 1)) return false;
  const local = [...value.slice(0, at)];
  if (!local.every((c) => c === '.' || ATEXT_CHARS.has(c))) return false;
  return value
    .slice(at + 1)
    .split('.')
    .every((label) => {
      const chars = [...label];
      const first = chars[0];
      const last = chars[chars.length - 1];
      return (
        chars.length >= 1 &&
        chars.length <= 63 &&
        first !== undefined &&
        last !== undefined &&
        LET_DIG_CHARS.has(first) &&
        LET_DIG_CHARS.has(last) &&
        chars.every((c) => c === '-' || LET_DIG_CHARS.has(c))
      );
    });
}

/**
 * The oracle for the e-mail field: trimmed (R5.2), then the HTML
 * standard's valid e-mail address (what `<input type=email>` accepts) with
 * a dot in the domain (ADR-0015).
 */
export function oracleEmail(raw: string): OracleVerdict {
  // Kept: String#trim, as R5.2 says "trimmed", not HTML's sanitization
  // (which strips only ASCII whitespace, and newlines anywhere).
  const email = raw.trim();
  if (email === '') return reject('empty');
  if (!HTML_VALID_EMAIL.test(email)) {
    return reject('format: not an HTML valid e-mail address');
  }
  // Kept: ADR-0015 wants a dot in the domain (name@localhost is
  // HTML-valid but cannot receive our mail).
  if (!email.slice(email.indexOf('@')).includes('.')) {
    return reject('format: no dot in the domain');
  }
  return accept('valid', email);
}

/** validator's isEmail set up to agree with the HTML rule where it can. */
export const EMAIL_VALIDATOR_OPTIONS: validator.IsEmailOptions = {
  allow_display_name: false,
  require_display_name: false,
  allow_utf8_local_part: false,
  require_tld: true,
  allow_ip_domain: false,
  allow_underscores: false,
  ignore_max_length: false,
  domain_specific_validation: false,
};

/** Where the HTML standard and validator's isEmail legitimately differ. */
export interface EmailRuleDifference {
  name: string;
  /** Who accepts what the other refuses. */
  reason: string;
  example: string;
  applies: (email: string) => boolean;
}

const localPart = (email: string): string =>
  email.slice(0, email.lastIndexOf('@'));
const domainPart = (email: string): string =>
  email.slice(email.lastIndexOf('@') + 1);

export const EMAIL_HTML_VS_VALIDATOR: readonly EmailRuleDifference[] = [
  {
    name: 'dots at the edges or doubled in the local part',
    reason:
      'HTML accepts any run of atext and "."; validator wants RFC 5322 dot-atoms',
    example: '.a..b.@example.com',
    applies: (email) => /^\.|\.$|\.\./.test(localPart(email)),
  },
  {
    name: 'quoted local part',
    reason:
      'validator accepts RFC 5322 quoted strings; HTML refuses quotes outright',
    example: '"john doe"@example.com',
    applies: (email) => /^".*"$/s.test(localPart(email)),
  },
  {
    name: 'length limits',
    reason:
      'validator caps the local part at 64 octets and the address at 254 (RFC 5321); HTML sets no length',
    example: `${'a'.repeat(65)}@example.com`,
    applies: (email) =>
      new TextEncoder().encode(localPart(email)).length > 64 ||
      email.length > 254,
  },
  {
    name: 'top-level domain',
    reason:
      'validator wants an alphabetic TLD of 2+ letters (or xn…); HTML accepts any label, so a@b.c and a@1.2.3.4 pass',
    example: 'name@1.2.3.4',
    applies: (email) =>
      !/^(?:[a-z\u00a1-\uffff]{2,}|xn[a-z0-9-]{2,})$/i.test(
        domainPart(email).split('.').pop() ?? '',
      ),
  },
  {
    name: 'non-ASCII domain',
    reason:
      'validator accepts Unicode domain labels; HTML wants ASCII (browsers send the punycode form)',
    example: 'name@bücher.de',
    applies: (email) => /[\u0080-\uffff]/.test(domainPart(email)),
  },
];
