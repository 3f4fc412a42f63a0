/**
 * The lint rules that keep the layers as docs/architecture.md draws them
 * (issue 47): no circle of imports anywhere (import-x/no-cycle), a
 * feature entered only through its public API, its `index.ts`
 * (import-x/no-restricted-paths), with layers (http/, db/, outbox/,
 * platform/) that import no feature, and common/ above contract/ alone.
 * Each rule is shown refusing what it must refuse and letting the public
 * API through, on code linted as if it stood in the tree.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/page/paths';

let eslint: ESLint;

beforeAll(() => {
  // `ignore: false`: the circle's fixtures are ignored by `npm run lint`.
  eslint = new ESLint({ cwd: PROJECT_ROOT, ignore: false });
});

/** The messages of one rule for `code` linted as the file at `path`. */
async function messagesOf(
  rule: string,
  path: string,
  code: string,
): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, {
    filePath: resolve(PROJECT_ROOT, path),
  });
  return (result?.messages ?? []).filter(({ ruleId }) => ruleId === rule);
}

/** The layers under the service's features: they import none. */
const LAYERS = ['http', 'db', 'outbox'];

/** The service's features: the folders of server/ with a public API (index.ts). */
const FEATURES = readdirSync(resolve(PROJECT_ROOT, 'server'), {
  withFileTypes: true,
})
  .filter(
    (entry) =>
      entry.isDirectory() &&
      !LAYERS.includes(entry.name) &&
      existsSync(resolve(PROJECT_ROOT, 'server', entry.name, 'index.ts')),
  )
  .map((entry) => entry.name);

/** A module of `feature` other than its public API. */
function moduleOf(feature: string): string {
  const found = readdirSync(resolve(PROJECT_ROOT, 'server', feature)).find(
    (name) => name.endsWith('.ts') && name !== 'index.ts',
  );
  if (!found)
    throw new Error(`server/${feature}/ has no module besides its index`);
  return found.replace(/\.ts$/, '');
}

describe('import-x/no-cycle', () => {
  it('refuses a circle of two files', async () => {
    const path = 'tests/unit/fixtures/importCycle/first.ts';
    const code =
      "import { second } from './second';\nexport const first = second;\n";
    expect(await messagesOf('import-x/no-cycle', path, code)).toHaveLength(1);
  });

  it('lets a file import one that does not import it back', async () => {
    const path = 'tests/unit/fixtures/importCycle/third.ts';
    const code =
      "import { second } from './second';\nexport const third = second;\n";
    expect(await messagesOf('import-x/no-cycle', path, code)).toEqual([]);
  });
});

describe('a feature of the service is entered through its index.ts', () => {
  it('the service has features with a public API', () => {
    expect(FEATURES.length).toBeGreaterThanOrEqual(5);
  });

  it.each(FEATURES)(
    '%s: another feature may not import a module behind its public API',
    async (feature) => {
      const other = FEATURES.find((name) => name !== feature) ?? '';
      const code = `export * from '../${feature}/${moduleOf(feature)}';\n`;
      const messages = await messagesOf(
        'import-x/no-restricted-paths',
        `server/${other}/probe.ts`,
        code,
      );
      expect(messages).toHaveLength(1);
    },
  );

  it.each(FEATURES)(
    '%s: another feature may import its index.ts',
    async (feature) => {
      const other = FEATURES.find((name) => name !== feature) ?? '';
      const code = `export * from '../${feature}';\n`;
      expect(
        await messagesOf(
          'import-x/no-restricted-paths',
          `server/${other}/probe.ts`,
          code,
        ),
      ).toEqual([]);
    },
  );

  it.each(FEATURES)(
    "%s: the service's top files use its public API too",
    async (feature) => {
      const code = `export * from './${feature}/${moduleOf(feature)}';\n`;
      expect(
        await messagesOf(
          'import-x/no-restricted-paths',
          'server/probe.ts',
          code,
        ),
      ).toHaveLength(1);
    },
  );

  it.each(LAYERS)(
    '%s/ is a layer: it imports no feature, not even its public API',
    async (layer) => {
      const code = FEATURES.map(
        (feature) => `export * from '../${feature}';\n`,
      ).join('');
      expect(
        await messagesOf(
          'import-x/no-restricted-paths',
          `server/${layer}/probe.ts`,
          code,
        ),
      ).toHaveLength(FEATURES.length);
    },
  );
});

describe('a feature of the page is entered through its index.ts', () => {
  const rule = 'import-x/no-restricted-paths';

  it('another feature may not import a module behind its public API', async () => {
    const code = "export * from '../signUp/prefill';\n";
    expect(await messagesOf(rule, 'src/consent/probe.ts', code)).toHaveLength(
      1,
    );
  });

  it('another feature may import its index.ts', async () => {
    const code = "export * from '../inputCapture';\n";
    expect(await messagesOf(rule, 'src/signUp/probe.ts', code)).toEqual([]);
  });

  it("the inline script takes consent's default and signals directly, and nothing else of it", async () => {
    const allowed =
      "export * from '../consent/consentDefault';\nexport * from '../consent/consentSignals';\n";
    expect(
      await messagesOf(rule, 'src/inputCapture/probe.ts', allowed),
    ).toEqual([]);
    const refused = "export * from '../consent/consentRecorder';\n";
    expect(
      await messagesOf(rule, 'src/inputCapture/probe.ts', refused),
    ).toHaveLength(1);
  });

  it('platform/ is a layer: it imports no feature, not even its public API', async () => {
    const code =
      "export * from '../inputCapture';\nexport * from '../consent';\n";
    expect(await messagesOf(rule, 'src/platform/probe.ts', code)).toHaveLength(
      2,
    );
  });
});

describe('common/ imports only contract/, libraries and itself', () => {
  const rule = 'no-restricted-imports';

  it('may import contract/, a library and its own modules', async () => {
    const code =
      "export * from '../contract/signUpForm';\nexport * from 'yup';\nexport * from './fieldLimits';\n";
    expect(await messagesOf(rule, 'common/probe.ts', code)).toEqual([]);
  });

  it.each([
    '../machines/signUpTypes',
    '../src/platform/env',
    '../server/environment',
    '../harness/engines',
  ])('may not import %s', async (path) => {
    const code = `export * from '${path}';\n`;
    expect(await messagesOf(rule, 'common/probe.ts', code)).toHaveLength(1);
  });
});

describe('the page keeps to what its browsers have', () => {
  const rule = 'no-restricted-properties';
  const code =
    'export const { promise, resolve } = Promise.withResolvers<void>();\n';

  it.each([
    'src/platform/probe.ts',
    'machines/probe.ts',
    'common/probe.ts',
    'contract/probe.ts',
  ])(
    '%s may not use Promise.withResolvers (not in Chrome 109)',
    async (path) => {
      expect(await messagesOf(rule, path, code)).toHaveLength(1);
    },
  );

  it.each(['server/probe.ts', 'harness/probe.ts', 'tests/unit/probe.ts'])(
    '%s, which runs on the pinned Node, may',
    async (path) => {
      expect(await messagesOf(rule, path, code)).toEqual([]);
    },
  );
});

describe("server/db/ names no feature's table (ADR-0128)", () => {
  /** Each feature's tables (and the outbox's), as its `tables.ts` declares them. */
  const tables = [...FEATURES, 'outbox'].flatMap((feature) => {
    const path = resolve(PROJECT_ROOT, 'server', feature, 'tables.ts');
    if (!existsSync(path)) return [];
    const declared = /export interface \w+Tables \{([^}]*)\}/.exec(
      readFileSync(path, 'utf8'),
    );
    return [...(declared?.[1] ?? '').matchAll(/^\s*(\w+):/gm)].map(
      ([, table]) => table,
    );
  });

  it('finds the tables the features declare', () => {
    // Every table of the service has an owner among the features.
    expect(tables).toEqual(
      expect.arrayContaining(['accounts', 'sessions', 'monitors']),
    );
  });

  it.each(
    readdirSync(resolve(PROJECT_ROOT, 'server/db')).filter((name) =>
      name.endsWith('.ts'),
    ),
  )('server/db/%s names none in its code', (name) => {
    const code = readFileSync(resolve(PROJECT_ROOT, 'server/db', name), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    const named = tables.filter((table) =>
      new RegExp(`\\b${table}\\b`).test(code),
    );
    expect(named).toEqual([]);
  });
});
