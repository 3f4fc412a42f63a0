/**
 * The Web Platform Tests inputs (tests/oracles/wpt/, see its README) and the
 * page's verdicts on them, in Node and, through a self-contained script, in
 * any browser engine. docs/url-and-email-rules.md, "One verdict": every side
 * must give the same verdict.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import {
  pageVerdicts,
  type Verdict,
  type VerdictCase,
  type VerdictKind,
} from './pageVerdict';

export type { Verdict, VerdictCase, VerdictKind };

const WPT_DIR = resolve(import.meta.dirname, 'wpt');

/** One parsed WPT file: strings are comments, objects are cases. */
function wptCases<T extends object>(file: string): T[] {
  const entries: unknown = JSON.parse(
    readFileSync(resolve(WPT_DIR, file), 'utf8'),
  );
  if (!Array.isArray(entries)) throw new Error(`${file}: not a JSON array`);
  return entries.filter(
    (entry): entry is T => typeof entry === 'object' && entry !== null,
  );
}

/** `url/resources/urltestdata.json`: the parser's expectations. */
export interface UrlTestCase {
  input: string;
  base: string | null;
  failure?: true;
  href?: string;
  protocol?: string;
  username?: string;
  password?: string;
  hostname?: string;
  port?: string;
}
/** `url/resources/toascii.json`: a host and its ASCII form, null if invalid. */
export interface ToAsciiCase {
  input: string;
  output: string | null;
}
/** The e-mail validity test's table: `<input type=email>`'s verdict. */
export interface EmailValidityCase {
  input: string;
  valid: boolean;
}

export const wptData = {
  urls: () => wptCases<UrlTestCase>('wpt-urltestdata.json'),
  hosts: () => wptCases<ToAsciiCase>('wpt-toascii.json'),
  emails: () => wptCases<EmailValidityCase>('wpt-email-validity.json'),
};

const unique = (inputs: string[]) => [...new Set(inputs)];

/**
 * Site URLs beyond the WPT data whose verdict turns on Unicode data that an
 * engine's own tables may lack: a letter newer than Unicode 15.0 (U+088F,
 * Unicode 17.0; ADR-0061) and joiners in and out of the contexts of RFC 5892
 * Appendix A (ADR-0062), with an emoji's variation selector (ADR-0063).
 */
export const UNICODE_EDGE_URLS: readonly string[] = [
  'ب\u088fب.com',
  'क्\u200cष.com',
  'क्\u200dष.com',
  'ه\u200cا.com',
  'ا\u200cه.com',
  'exa\u200dmple.com',
  'xn--ab-m1t.com',
  'xn--1ug.example',
  '❤\ufe0f.com',
  '❤.com',
];

/**
 * Every WPT input once per use: each distinct URL test input; each toascii
 * host as typed and as `http://<host>/`; each e-mail validity input; then
 * {@link UNICODE_EDGE_URLS}.
 *
 * @returns the cases, URLs first, in the files' order
 */
export function verdictCases(): VerdictCase[] {
  const hosts = unique(wptData.hosts().map((c) => c.input));
  return [
    ...unique(wptData.urls().map((c) => c.input)).map((input) => ({
      input,
      kind: 'url' as const,
      source: 'urltestdata',
    })),
    ...hosts.map((input) => ({
      input,
      kind: 'url' as const,
      source: 'toascii host',
    })),
    ...hosts.map((host) => ({
      input: `http://${host}/`,
      kind: 'url' as const,
      source: 'toascii url',
    })),
    ...unique(wptData.emails().map((c) => c.input)).map((input) => ({
      input,
      kind: 'email' as const,
      source: 'email-validity',
    })),
    ...UNICODE_EDGE_URLS.map((input) => ({
      input,
      kind: 'url' as const,
      source: 'unicode edge',
    })),
  ];
}

/** The page's verdicts, computed in this Node process. */
export function nodeVerdicts(cases: readonly VerdictCase[]): Verdict[] {
  return pageVerdicts(cases);
}

/**
 * A self-contained classic script (an IIFE bundle of common/validation.ts and
 * its dependencies, built with esbuild) that, evaluated in any page, defines
 * `window.__vigilVerdicts(cases) → Verdict[]`. It needs no DOM and no `URL`.
 *
 * @returns the script's source, ASCII only (non-ASCII characters escaped)
 */
export async function browserVerdictScript(): Promise<string> {
  const result = await build({
    entryPoints: [resolve(import.meta.dirname, 'pageVerdictScript.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    charset: 'ascii',
    write: false,
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild wrote no verdict script');
  // esbuild escapes strings but leaves regular expressions and comments as
  // written; a \u escape means the same there, UTF-16 unit by unit.
  return output.text.replace(
    /[^\0-\x7f]/g,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
