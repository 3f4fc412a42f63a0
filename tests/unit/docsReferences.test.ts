/**
 * Every name the docs make a claim with exists (issue 61), read from the
 * files as the diagrams' test reads them: in README.md, docs/*.md and
 * docs/adr/*.md, each path, `npm` command and environment variable. The
 * Markdown is read by markdown-it (CommonMark), the headings' anchors made
 * by github-slugger (GitHub's own rule).
 *
 * The rules, which decide what is a claim without a list of exceptions:
 *
 * - **Links** `[text](target)`: a target with a scheme (`https:`,
 *   `mailto:`) is outside the repository and not followed; any other
 *   resolves from the doc's folder, as Markdown does, and must exist; its
 *   `#fragment`, in a Markdown file, must be a heading's anchor (GitHub's
 *   slug) or an `id` written in that file.
 * - **Paths in code spans**: a span is a path when it holds only path
 *   characters and ends in `/`, ends in a file extension the repository
 *   uses, or starts with one of the repository's top-level entries (or
 *   `./`, `../`). One that starts at the top must exist from the root or
 *   from the doc's folder; a shorter one (`check/siteCheck.ts` in a
 *   paragraph about `server/monitor/`) must be the end of a real path; a
 *   file name alone may also be one the code names (a file a command
 *   writes, like `index-gpc.html`, or fetches, like `api.js`). Not
 *   claims: a package (`@fastify/helmet`), a module's subpath
 *   (`xstate/graph`), a span
 *   starting with `/` (a route, or a path on the host), a URL, a pattern
 *   (`*`, `{…}`, `<…>`, `$…`, `PUBLIC_URL/…`), a bare extension (`.gz`),
 *   and a path under what .gitignore
 *   ignores (what a command writes: `dist/`, `atlas/`, `reports/`).
 * - **Commands**, in code spans and code blocks (not diagrams): `npm run X`
 *   needs X in package.json's scripts; `npm X` must be one of npm's own
 *   commands, and `npm test` / `npm start` their script too.
 * - **Environment variables**: a code span holding one UPPER_SNAKE name
 *   with an underscore (`SMTP_URL`, `$DATA_DIR`, `MONITOR_RESOLVE=…`) must
 *   be a word of the code; one the doc presents as configuration (in a
 *   table column headed "variable") must be read from an environment by
 *   the code: `env.NAME`, `env['NAME']` or the string `'NAME'` passed to a
 *   reader.
 *
 * A code span is a claim: a doc that names something gone (a withdrawn
 * file or command) writes its name as plain text.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/page/paths';

/** What the docs are checked against. */
interface World {
  /** Every file and folder of the repository (folders end in `/`), from the root. */
  paths: ReadonlySet<string>;
  /** The top-level entries of the repository. */
  topLevel: ReadonlySet<string>;
  /** .gitignore's patterns, each as a test of a path's first segment. */
  ignored: readonly RegExp[];
  /** package.json's scripts. */
  scripts: ReadonlySet<string>;
  /** package.json's dependencies and devDependencies. */
  packages: ReadonlySet<string>;
  /** The code's text, every source file joined (not the docs, not this test). */
  code: string;
  /** A Markdown file's text by its path from the root, or undefined. */
  read(path: string): string | undefined;
}

/** npm's own commands the docs may name without a script. */
const NPM_COMMANDS = new Set([
  'install',
  'ci',
  'exec',
  'run',
  'test',
  'start',
  'stop',
  'restart',
  'uninstall',
  'update',
  'ls',
  'audit',
]);
/** The npm commands that run a script of package.json. */
const NPM_SCRIPT_COMMANDS = new Set(['test', 'start', 'stop', 'restart']);

/** The extensions a span must end in to be a file name. */
const FILE_EXTENSIONS =
  /\.(ts|tsx|js|mjs|cjs|json|md|css|html|mmd|png|svg|sh|yml|yaml|txt)$/;
/** Only these characters: a span with any other is prose or a pattern. */
const PATH_CHARACTERS = /^[\w.@/+-]+$/;
/** One UPPER_SNAKE name, possibly `$NAME` or `NAME=value`. */
const VARIABLE_SPAN = /^\$?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=\S*)?$/;

/** One checked text of a doc: where it is, and whether it is a code block's line. */
interface Piece {
  line: number;
  text: string;
}

/** A doc, split into its code spans, its code blocks' lines, links and tables. */
interface ReadDoc {
  spans: Piece[];
  blockLines: Piece[];
  links: Piece[];
  /** The first cell's span of each row under a column headed "variable". */
  configuration: Piece[];
}

/** CommonMark, with the raw HTML the docs use for anchors (`<a id>`). */
const markdown = new MarkdownIt({ html: true });

/** The text of an inline token as rendered: its text and code spans, no markup. */
function plainText(inline: Token): string {
  return (inline.children ?? [])
    .filter((child) => child.type === 'text' || child.type === 'code_inline')
    .map((child) => child.content)
    .join('');
}

/**
 * Reads a Markdown text into what the rules check, from markdown-it's
 * tokens (CommonMark): the code spans and links of every inline
 * (paragraphs, lists, headings, table cells), the lines of code blocks
 * but diagrams, and the code spans of a table's column headed "variable".
 */
function readDoc(text: string): ReadDoc {
  const doc: ReadDoc = {
    spans: [],
    blockLines: [],
    links: [],
    configuration: [],
  };
  let row = 0;
  let inHead = false;
  let cell = -1;
  let variableColumn = -1;
  for (const token of markdown.parse(text, {})) {
    const first = (token.map?.[0] ?? 0) + 1;
    if (token.type === 'tr_open') {
      row = first;
      cell = -1;
    } else if (token.type === 'thead_open') inHead = true;
    else if (token.type === 'thead_close') inHead = false;
    else if (token.type === 'table_close') variableColumn = -1;
    else if (token.type === 'th_open' || token.type === 'td_open') cell += 1;
    else if (token.type === 'fence' || token.type === 'code_block') {
      if (token.type === 'fence' && token.info.trim() === 'mermaid') continue;
      // A fence's content starts on the line after its opening.
      const offset = token.type === 'fence' ? 1 : 0;
      token.content.split('\n').forEach((line, index) => {
        doc.blockLines.push({ line: first + offset + index, text: line });
      });
    } else if (token.type === 'inline') {
      const inCell = cell >= 0;
      if (inHead && /^variable/i.test(plainText(token))) variableColumn = cell;
      let line = inCell ? row : first;
      for (const child of token.children ?? []) {
        if (child.type === 'softbreak' || child.type === 'hardbreak') {
          line += 1;
        } else if (child.type === 'code_inline') {
          const span = {
            line,
            text: child.content.replace(/\s+/g, ' ').trim(),
          };
          doc.spans.push(span);
          if (inCell && !inHead && cell === variableColumn) {
            doc.configuration.push(span);
          }
        } else if (child.type === 'link_open' || child.type === 'image') {
          const target = child.attrGet(child.type === 'image' ? 'src' : 'href');
          if (target !== null) doc.links.push({ line, text: String(target) });
        }
      }
    }
    if (token.type === 'tr_close') cell = -1;
    if (token.type === 'table_close') cell = -1;
  }
  return doc;
}

/**
 * Every anchor a Markdown text offers: its headings' slugs (GitHub's, by
 * github-slugger, numbered when repeated) and the `id`s and `name`s of
 * its raw HTML.
 */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const slugger = new GithubSlugger();
  const tokens = markdown.parse(text, {});
  tokens.forEach((token, index) => {
    const next = tokens[index + 1];
    if (token.type === 'heading_open' && next?.type === 'inline') {
      anchors.add(slugger.slug(plainText(next)));
    }
    const html =
      token.type === 'html_block'
        ? token.content
        : (token.children ?? [])
            .filter((child) => child.type === 'html_inline')
            .map((child) => child.content)
            .join(' ');
    for (const match of html.matchAll(/\b(?:id|name)="([^"]+)"/g)) {
      anchors.add(match[1] ?? '');
    }
  });
  return anchors;
}

/** Whether a path from the root exists in the repository (or on disk, for an ignored one). */
function exists(world: World, path: string): boolean {
  const clean = normalize(path).replace(/\/$/, '');
  return (
    world.paths.has(clean) ||
    world.paths.has(`${clean}/`) ||
    existsSync(resolve(PROJECT_ROOT, clean))
  );
}

/** Whether a path's first segment is one .gitignore ignores. */
function isIgnored(world: World, path: string): boolean {
  const first = path.replace(/^\.\//, '').split('/')[0] ?? '';
  return world.ignored.some((pattern) => pattern.test(first));
}

/** What is wrong with a link of the doc at `docPath`, if anything. */
function linkProblem(
  world: World,
  docPath: string,
  target: string,
): string | undefined {
  if (/^[a-z][a-z+.-]*:/i.test(target)) return undefined;
  const [rawPath = '', fragment] = target.split('#');
  const path = decodeURIComponent(rawPath);
  const file = path === '' ? docPath : normalize(join(dirname(docPath), path));
  if (file.startsWith('..')) return `link ${target}: leaves the repository`;
  if (!exists(world, file)) return `link ${target}: no ${file}`;
  if (fragment === undefined || !file.endsWith('.md')) return undefined;
  const text = world.read(file);
  if (
    text !== undefined &&
    !anchorsOf(text).has(decodeURIComponent(fragment))
  ) {
    return `link ${target}: ${file} has no anchor #${fragment}`;
  }
  return undefined;
}

/** What is wrong with a code span taken for a path, if it is one and anything is. */
function pathProblem(
  world: World,
  docPath: string,
  span: string,
): string | undefined {
  if (!PATH_CHARACTERS.test(span) || span.startsWith('/')) return undefined;
  // `.gz`, `.env`: a kind of file, not a file.
  if (/^\.\w+$/.test(span)) return undefined;
  const path = span.replace(/^\.\//, '');
  const segments = path.split('/');
  const first = segments[0] ?? '';
  // `PUBLIC_URL/…`: a variable's value, not a folder.
  if (/^[A-Z][A-Z0-9_]*$/.test(first) && segments.length > 1) return undefined;
  // `@fastify/helmet`: a package, used or not, not a path.
  if (first.startsWith('@')) return undefined;
  const fromTop = world.topLevel.has(first) || /^\.\.?\//.test(span);
  const isPath = fromTop || path.endsWith('/') || FILE_EXTENSIONS.test(path);
  if (!isPath || isIgnored(world, path)) return undefined;
  if (!fromTop && world.packages.has(first)) return undefined;
  const fromDoc = normalize(join(dirname(docPath), path));
  if (
    exists(world, path) ||
    (!fromDoc.startsWith('..') && exists(world, fromDoc))
  ) {
    return undefined;
  }
  if (!fromTop) {
    const tail = `/${path}`;
    for (const known of world.paths)
      if (`/${known}`.endsWith(tail)) return undefined;
  }
  // A file name alone that the code names: one a command writes or fetches.
  if (
    segments.length === 1 &&
    new RegExp(`\\b${escaped(path)}\\b`).test(world.code)
  ) {
    return undefined;
  }
  return `\`${span}\`: no such file or folder`;
}

/** `text` as a regular expression that matches it literally. */
function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What is wrong with the npm commands in a text, one sentence each. */
function commandProblems(world: World, text: string): string[] {
  const problems: string[] = [];
  for (const match of text.matchAll(/\bnpm\s+(?:(run)\s+)?([a-z][\w:-]*)/g)) {
    const [command, run, name = ''] = match;
    if (run !== undefined) {
      if (!world.scripts.has(name))
        problems.push(`${command}: no script "${name}"`);
    } else if (!NPM_COMMANDS.has(name)) {
      problems.push(
        `${command}: neither npm's own command nor \`npm run ${name}\``,
      );
    } else if (NPM_SCRIPT_COMMANDS.has(name) && !world.scripts.has(name)) {
      problems.push(`${command}: no script "${name}"`);
    }
  }
  return problems;
}

/** Whether the code reads `name` from an environment. */
function readFromEnvironment(world: World, name: string): boolean {
  return new RegExp(
    `env\\??\\.${name}\\b|\\[\\s*['"\`]${name}['"\`]\\s*\\]|['"\`]${name}['"\`]`,
  ).test(world.code);
}

/** Every problem of one doc, each with its line. */
function problemsOf(world: World, docPath: string, text: string): string[] {
  const doc = readDoc(text);
  const problems: string[] = [];
  const at = (piece: Piece, problem: string | undefined): void => {
    if (problem !== undefined)
      problems.push(`${docPath}:${piece.line}: ${problem}`);
  };
  for (const link of doc.links)
    at(link, linkProblem(world, docPath, link.text));
  for (const span of doc.spans) {
    at(span, pathProblem(world, docPath, span.text));
    for (const problem of commandProblems(world, span.text)) at(span, problem);
    const variable = VARIABLE_SPAN.exec(span.text)?.[1];
    if (
      variable !== undefined &&
      !new RegExp(`\\b${variable}\\b`).test(world.code)
    ) {
      at(span, `\`${span.text}\`: the code names no ${variable}`);
    }
  }
  for (const piece of doc.blockLines) {
    for (const problem of commandProblems(world, piece.text))
      at(piece, problem);
  }
  for (const setting of doc.configuration) {
    const name = /^\$?([A-Z][A-Z0-9_]*)/.exec(setting.text)?.[1];
    if (name !== undefined && !readFromEnvironment(world, name)) {
      at(
        setting,
        `\`${setting.text}\`: no code reads ${name} from the environment`,
      );
    }
  }
  return problems.sort(
    (a, b) => Number(/:(\d+):/.exec(a)?.[1]) - Number(/:(\d+):/.exec(b)?.[1]),
  );
}

/** .gitignore's patterns, as tests of a first segment. */
function gitignorePatterns(text: string): RegExp[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.replace(/^\/|\/$/g, ''))
    .filter((line) => !line.includes('/'))
    .map(
      (line) =>
        new RegExp(
          `^${line.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`,
        ),
    );
}

/** The repository's files and folders, from the root, but .git and what .gitignore ignores. */
function walk(root: string, ignored: readonly RegExp[]): Set<string> {
  const paths = new Set<string>();
  const visit = (folder: string): void => {
    for (const entry of readdirSync(folder)) {
      const full = join(folder, entry);
      const path = relative(root, full);
      if (
        folder === root &&
        (entry === '.git' || ignored.some((p) => p.test(entry)))
      ) {
        continue;
      }
      if (statSync(full).isDirectory()) {
        paths.add(`${path}/`);
        visit(full);
      } else paths.add(path);
    }
  };
  visit(root);
  return paths;
}

/** The repository as the docs' checks see it. */
function repositoryWorld(): World {
  const read = (path: string): string =>
    readFileSync(resolve(PROJECT_ROOT, path), 'utf8');
  const ignored = gitignorePatterns(read('.gitignore'));
  const paths = walk(PROJECT_ROOT, ignored);
  const pkg = JSON.parse(read('package.json')) as {
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const self = relative(PROJECT_ROOT, import.meta.filename);
  const sources = [...paths].filter(
    (path) =>
      (/\.(ts|tsx|js|mjs|cjs)$/.test(path) && path !== self) ||
      path === 'package.json' ||
      path === '.ci/run',
  );
  return {
    paths,
    topLevel: new Set(readdirSync(PROJECT_ROOT)),
    ignored,
    scripts: new Set(Object.keys(pkg.scripts)),
    packages: new Set([
      ...Object.keys(pkg.dependencies),
      ...Object.keys(pkg.devDependencies),
    ]),
    code: sources.map(read).join('\n'),
    read: (path) =>
      existsSync(resolve(PROJECT_ROOT, path)) ? read(path) : undefined,
  };
}

/** The docs checked: README.md, docs/*.md and docs/adr/*.md when it exists. */
function docPaths(): string[] {
  const inFolder = (folder: string): string[] =>
    existsSync(resolve(PROJECT_ROOT, folder))
      ? readdirSync(resolve(PROJECT_ROOT, folder))
          .filter((name) => name.endsWith('.md'))
          .map((name) => `${folder}/${name}`)
      : [];
  return ['README.md', ...inFolder('docs'), ...inFolder('docs/adr')];
}

const world = repositoryWorld();

describe('the docs name only what exists', () => {
  it.each(docPaths())('%s', (docPath) => {
    const text = readFileSync(resolve(PROJECT_ROOT, docPath), 'utf8');
    expect(problemsOf(world, docPath, text)).toEqual([]);
  });
});

describe('the rules of the check', () => {
  const sample = (text: string): string[] =>
    problemsOf(world, 'docs/sample.md', text);

  it('finds a missing file, script, anchor and variable', () => {
    const problems = sample(
      [
        'See `server/monitor/gone.ts`, `check/nowhere.ts` and [the rules](missing.md).',
        'Run `npm run no-such-script`, then `npm frobnicate`.',
        'Read [the layout](architecture.md#no-such-heading) and `tests/unit/gone/`.',
        'Set `NO_SUCH_VARIABLE` to anything.',
        '',
        '| variable | meaning |',
        '|---|---|',
        '| `VIGIL_PAGE_CONFIG_UNREAD` | unread |',
      ].join('\n'),
    );
    expect(problems).toEqual([
      'docs/sample.md:1: link missing.md: no docs/missing.md',
      'docs/sample.md:1: `server/monitor/gone.ts`: no such file or folder',
      'docs/sample.md:1: `check/nowhere.ts`: no such file or folder',
      'docs/sample.md:2: npm run no-such-script: no script "no-such-script"',
      "docs/sample.md:2: npm frobnicate: neither npm's own command nor `npm run frobnicate`",
      'docs/sample.md:3: link architecture.md#no-such-heading: docs/architecture.md has no anchor #no-such-heading',
      'docs/sample.md:3: `tests/unit/gone/`: no such file or folder',
      'docs/sample.md:4: `NO_SUCH_VARIABLE`: the code names no NO_SUCH_VARIABLE',
      'docs/sample.md:8: `VIGIL_PAGE_CONFIG_UNREAD`: the code names no VIGIL_PAGE_CONFIG_UNREAD',
      'docs/sample.md:8: `VIGIL_PAGE_CONFIG_UNREAD`: no code reads VIGIL_PAGE_CONFIG_UNREAD from the environment',
    ]);
  });

  it('passes what exists, and what is an example or a product of a command', () => {
    expect(
      sample(
        [
          '`server/monitor/check/siteCheck.ts`, `check/siteCheck.ts`, `siteCheck.ts`, `harness/`,',
          '[the README](../README.md#the-machines), ADR-0001, [elsewhere](https://vigil.example/x),',
          '`/signup`, `/etc/hosts`, `https://example.com/a.json`, `dist/index.html`, `xstate/graph`,',
          '`tests/**/*.test.ts`, `$DATA_DIR/mail`, `application/json`, `npm test`, `npm run build -- --x`,',
          '`SMTP_URL`, `MONITOR=off`, `npm exec -- vitest run`, `@fastify/helmet`.',
        ].join('\n'),
      ),
    ).toEqual([]);
  });
});
