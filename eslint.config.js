// @ts-check
import js from '@eslint/js';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** What the files of one folder may not import. */
function layer(files, patterns) {
  return [
    {
      files: [files],
      rules: { 'no-restricted-imports': ['error', { patterns }] },
    },
  ];
}

/**
 * The features of the service and of the page (docs/architecture.md): each
 * is a folder whose index.ts is its public API, through which another
 * feature imports it. Under them are layers that import no feature: the
 * service's http/, db/ and outbox/, the page's platform/.
 */
const SERVER_FEATURES = [
  'accounts',
  'signUp',
  'consent',
  'monitor',
  'rateLimit',
  'alerts',
];
const PAGE_FEATURES = ['signUp', 'consent', 'inputCapture'];

/**
 * `import-x/no-restricted-paths` zones: one public API per feature, and the
 * layers under the features.
 *
 * @param root the folder (`server`, `src`)
 * @param layers the folders of `root` under the features
 * @param options.topUsesPublicApi whether the root's own files (the
 *   service's app.ts; not the page's app.tsx, which wires each feature's
 *   modules and renders its views) must import features through their
 *   public API too
 * @param options.also more modules of a feature that one other feature may
 *   import: `{ inputCapture: { consent: ['./consentDefault.ts'] } }`
 */
function featureZones(root, features, layers, { topUsesPublicApi, also = {} }) {
  const publicApis = features.flatMap((feature) => {
    const message = `Another feature imports ${root}/${feature}/ only through its index.ts.`;
    const widened = features.filter((other) => also[other]?.[feature]);
    const rest = features.filter(
      (other) => other !== feature && !widened.includes(other),
    );
    return [
      {
        target: [
          ...(topUsesPublicApi ? [`./${root}/*.{ts,tsx}`] : []),
          ...rest.map((other) => `./${root}/${other}/**/*`),
          ...layers.map((layer) => `./${root}/${layer}/**/*`),
        ],
        from: `./${root}/${feature}`,
        except: ['./index.ts'],
        message,
      },
      ...widened.map((other) => ({
        target: `./${root}/${other}/**/*`,
        from: `./${root}/${feature}`,
        except: ['./index.ts', ...also[other][feature]],
        message,
      })),
    ];
  });
  const layerZones = layers.map((layer) => ({
    target: `./${root}/${layer}`,
    from: features.map((feature) => `./${root}/${feature}`),
    message: `${root}/${layer}/ is a layer under the features: it imports none of them.`,
  }));
  return [...publicApis, ...layerZones];
}

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'dist-*/',
      '.parcel-cache/',
      'node_modules/',
      // StrykerJS's reports and sandboxes (npm run mutation).
      'reports/',
      '.stryker-tmp/',
      // A circle of imports on purpose, for the lint rules' own test.
      'tests/unit/fixtures/importCycle/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      globals: { ...globals.browser, ...globals.node },
    },
  },
  {
    files: ['**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    files: ['**/*.tsx'],
    ...jsxA11y.flatConfigs.strict,
  },
  // What runs in the browser keeps to what the browsers of `browserslist`
  // have: tsconfig.json's lib lets the Node code use ES2024's
  // Promise.withResolvers, which Chrome 109 (still among them) lacks, and
  // Parcel adds no polyfill.
  {
    files: ['src/**', 'machines/**', 'common/**', 'contract/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'Promise',
          property: 'withResolvers',
          message:
            'Not in every browser the page supports (Chrome 109): a new Promise with its executor.',
        },
      ],
    },
  },
  // The layers (docs/architecture.md): imports only point down, from the
  // server and the scripts, through the page to the machines and the shared
  // rules, and under them the wire contract, which imports nothing.
  ...layer('contract/**', [
    {
      regex: '^(?!\\./)',
      message: 'contract/ imports nothing but itself.',
    },
  ]),
  ...layer('machines/**', [
    {
      regex: '^(?!xstate(?:/|$)|\\./|\\.\\./contract/)',
      message: 'machines/ imports only xstate, contract/ and itself.',
    },
  ]),
  ...layer('common/**', [
    {
      regex: '^(?:/|\\.\\./(?!contract/))',
      message: 'common/ imports only contract/, libraries and itself.',
    },
  ]),
  ...layer('src/**', [
    {
      group: ['**/server/**', '**/scripts/**', '**/tests/**'],
      message:
        'The page imports only contract/, common/, machines/ and libraries.',
    },
  ]),
  ...layer('server/**', [
    {
      group: ['**/src/**', '**/scripts/**', '**/tests/**'],
      message: 'The server never imports browser code, scripts or tests.',
    },
  ]),
  // The atlas and the benchmarks drive the page with the tests' harness
  // (ADR-0081): scripts use harness/, never a test; the harness is the layer
  // under both, so it imports neither.
  ...layer('scripts/**', [
    {
      group: ['**/tests/**'],
      message: 'scripts/ use harness/, never a test.',
    },
  ]),
  ...layer('harness/**', [
    {
      group: ['**/tests/**', '**/scripts/**'],
      message: 'harness/ is shared by scripts/ and tests/: it imports neither.',
    },
  ]),
  // No circle of imports anywhere, and each feature entered by its public API.
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      // import-x reads a dependency only with these (its typescript preset).
      'import-x/extensions':
        importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/parsers':
        importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...featureZones(
              'server',
              SERVER_FEATURES,
              ['http', 'db', 'outbox'],
              { topUsesPublicApi: true },
            ),
            ...featureZones('src', PAGE_FEATURES, ['platform'], {
              topUsesPublicApi: false,
              // The inline script is bundled alone by esbuild, which cannot
              // leave out an index's other exports (ADR-0116): it imports the
              // two small consent modules it needs directly.
              also: {
                inputCapture: {
                  consent: ['./consentDefault.ts', './consentSignals.ts'],
                },
              },
            }),
          ],
        },
      ],
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
);
