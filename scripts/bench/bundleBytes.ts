/**
 * What the built page's JavaScript is made of, in bytes: which scripts a
 * visit loads, and how much of them the libraries of the stack cost against
 * our own code. Used by `npm run bench` (scripts/bench/bench.ts) and the byte
 * budgets (tests/browser/budgets.test.ts). Sizes are deterministic for a
 * given build: gzip at level 9 and Brotli at its highest quality, as the
 * build precompresses the files the server sends.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { eachMapping, TraceMap } from '@jridgewell/trace-mapping';

const PROJECT_ROOT = resolve(import.meta.dirname, '../..');

/**
 * The libraries the page is built on. Their cost, with everything they
 * depend on, is the "stack floor": what any page made of them pays.
 */
export const STACK_PACKAGES = [
  'react',
  'react-dom',
  'xstate',
  '@xstate/react',
  'yup',
  'js-cookie',
  'react-google-recaptcha',
] as const;

/** Loaded only with SENTRY_DSN and a first report: not on a normal visit. */
export const SENTRY_CHUNK = /^sentry\.[0-9a-f]+\.js$/;

/**
 * The chunks the page loads later than its first load, each named by a
 * source module it holds (a path as its source map writes it, after any
 * leading `../`; a package's anywhere in it) and by what makes the page fetch
 * it (ADR-0058, ADR-0059, ADR-0071). A chunk holding none of these counts as
 * initial.
 */
export const LAZY_CHUNKS = [
  {
    name: "submit chunk (the form's rules with yup, the API client)",
    module: 'src/signUp/submitChunk.ts',
    trigger:
      'the first edit of a field, or a submit before one; an address that prefills an e-mail or a site URL',
  },
  {
    name: 'UTS #46 host rule (tr46)',
    module: 'node_modules/tr46/',
    trigger: 'a host with a non-ASCII character or an xn-- label',
  },
  {
    name: 'form help (e-mail typo suggestions, error summary details)',
    module: 'src/signUp/views/formHelp.tsx',
    trigger: 'after the first paint',
  },
  {
    name: 'consent modal',
    module: 'src/consent/views/ConsentDialog.tsx',
    trigger: 'the consent modal opens (a campaign visit, or Cookie settings)',
  },
  {
    name: "consent records' sender",
    module: 'src/consent/consentSender.ts',
    trigger:
      'the first consent choice, or a load with a record an earlier page kept',
  },
  {
    name: "the tag's effects",
    module: 'src/consent/tagEffects.ts',
    trigger:
      'a consent choice stored or made: the tag loads, or is removed with its cookies',
  },
  {
    name: 'Sentry',
    module: 'src/platform/sentry.ts',
    trigger: 'the first error report, with SENTRY_DSN set',
  },
] as const;

/** One lazily loaded chunk of a build. */
export interface LazyChunk {
  /** The script's file name. */
  script: string;
  name: string;
  trigger: string;
  /** Its file as sent. */
  wire: Bytes;
}

/** Bytes of a text or a file, plain and compressed. */
export interface Bytes {
  raw: number;
  gzip: number;
  brotli: number;
}

/** A part of the page's JavaScript, by where its source comes from. */
export type Origin = 'stack' | 'ours' | 'other';

export interface JsComposition {
  /**
   * The scripts `/signup` loads before the visitor's first interaction:
   * every chunk but the {@link LAZY_CHUNKS}.
   */
  scripts: string[];
  /** Their files as sent: the sums of the precompressed files. */
  wire: Bytes;
  /** The chunks loaded later, listed and not counted in `wire`. */
  lazy: LazyChunk[];
  /**
   * The generated code each origin accounts for, compressed on its own:
   * `stack` is the stack floor; `ours` is `src/` and `machines/`; `other`
   * is the bundler's runtime and helpers.
   */
  parts: Record<Origin, Bytes>;
}

/** Bytes of a text: its UTF-8 length, gzip -9 and Brotli at quality 11. */
export function bytesOf(text: string): Bytes {
  const buffer = Buffer.from(text);
  return {
    raw: buffer.length,
    gzip: gzipSync(buffer, { level: 9 }).length,
    brotli: brotliCompressSync(buffer, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: buffer.length,
      },
    }).length,
  };
}

/**
 * The npm packages `roots` stand for: themselves and, transitively, their
 * `dependencies`, as installed in the project's node_modules.
 */
export function withDependencies(roots: readonly string[]): Set<string> {
  const found = new Set<string>();
  const visit = (name: string) => {
    if (found.has(name)) return;
    found.add(name);
    const manifest = JSON.parse(
      readFileSync(
        join(PROJECT_ROOT, 'node_modules', name, 'package.json'),
        'utf8',
      ),
    ) as { dependencies?: Record<string, string> };
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      visit(dependency);
    }
  };
  roots.forEach(visit);
  return found;
}

/**
 * The npm package a source-map source belongs to, e.g. `@xstate/react`
 * for `../node_modules/@xstate/react/dist/x.js`; undefined outside
 * node_modules.
 */
export function packageOf(source: string): string | undefined {
  const path = source.split('node_modules/').at(-1);
  if (path === undefined || path === source) return undefined;
  const [first, second] = path.split('/');
  return first?.startsWith('@') ? `${first}/${second}` : first;
}

/**
 * The generated code of `script` (in `distDir`, beside its `.map`) that its
 * source map attributes to each origin, concatenated in order. A mapping
 * segment spans from its column to the next segment's, or to the line's
 * end. Code whose segment names no source is the bundler's glue around the
 * module before it (its wrapper, its export names): it counts with that
 * module; before any module, as `other`.
 */
export function codeByOrigin(
  distDir: string,
  script: string,
  originOf: (source: string) => Origin,
): Record<Origin, string> {
  const lines = readFileSync(join(distDir, script), 'utf8').split('\n');
  const map = new TraceMap(
    readFileSync(join(distDir, `${script}.map`), 'utf8'),
  );
  const mappings: { line: number; column: number; source: string | null }[] =
    [];
  eachMapping(map, (mapping) => {
    mappings.push({
      line: mapping.generatedLine - 1,
      column: mapping.generatedColumn,
      source: mapping.source,
    });
  });
  mappings.sort((a, b) => a.line - b.line || a.column - b.column);
  let enclosing: Origin = 'other';
  const segments = mappings.map(({ line, column, source }) => {
    if (source !== null) enclosing = originOf(source);
    return { line, column, origin: enclosing };
  });
  const code: Record<Origin, string[]> = { stack: [], ours: [], other: [] };
  segments.forEach((segment, index) => {
    const line = lines[segment.line] ?? '';
    const next = segments[index + 1];
    const end = next && next.line === segment.line ? next.column : line.length;
    code[segment.origin].push(line.slice(segment.column, end));
  });
  return {
    stack: code.stack.join(''),
    ours: code.ours.join(''),
    other: code.other.join(''),
  };
}

/**
 * The JavaScript of a build (Parcel's output with source maps): the
 * scripts `/signup` loads first, their bytes as sent, and their parts by
 * origin; and each lazily loaded chunk, named by the source module it
 * holds ({@link LAZY_CHUNKS}), with its bytes and trigger.
 *
 * @throws Error when a script has no source map (build without
 *   `--no-source-maps`)
 */
export function jsComposition(distDir: string): JsComposition {
  const all = readdirSync(distDir).filter((name) => name.endsWith('.js'));
  const size = (name: string) => statSync(join(distDir, name)).size;
  const wireOf = (name: string): Bytes => ({
    raw: size(name),
    gzip: size(`${name}.gz`),
    brotli: size(`${name}.br`),
  });
  const lazy: LazyChunk[] = [];
  for (const script of all) {
    const sources = new TraceMap(
      readFileSync(join(distDir, `${script}.map`), 'utf8'),
    ).sources.map((source) => source?.replace(/^(?:\.\.\/)+/, '') ?? '');
    // A package's path may go through another checkout's node_modules
    // (`../main/node_modules/tr46/…`): it is matched anywhere in the source.
    const chunk = LAZY_CHUNKS.find(({ module }) =>
      sources.some((source) =>
        module.startsWith('node_modules/')
          ? source.includes(module)
          : source === module,
      ),
    );
    if (chunk) {
      lazy.push({
        script,
        name: chunk.name,
        trigger: chunk.trigger,
        wire: wireOf(script),
      });
    }
  }
  const scripts = all.filter(
    (name) => !lazy.some((chunk) => chunk.script === name),
  );
  const stack = withDependencies(STACK_PACKAGES);
  const originOf = (source: string): Origin => {
    const name = packageOf(source);
    if (name !== undefined) return stack.has(name) ? 'stack' : 'other';
    return /^(?:\.\.\/)*(?:src|machines)\//.test(source) ? 'ours' : 'other';
  };
  const code: Record<Origin, string> = { stack: '', ours: '', other: '' };
  for (const script of scripts) {
    const parts = codeByOrigin(distDir, script, originOf);
    for (const origin of ['stack', 'ours', 'other'] as const) {
      code[origin] += parts[origin];
    }
  }
  return {
    scripts,
    wire: scripts.map(wireOf).reduce(
      (sum, bytes) => ({
        raw: sum.raw + bytes.raw,
        gzip: sum.gzip + bytes.gzip,
        brotli: sum.brotli + bytes.brotli,
      }),
      { raw: 0, gzip: 0, brotli: 0 },
    ),
    lazy,
    parts: {
      stack: bytesOf(code.stack),
      ours: bytesOf(code.ours),
      other: bytesOf(code.other),
    },
  };
}
