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
 * is a folder whose index.ts is its one door, through which another feature
 * imports it. Under them are floors that import no feature: the service's
 * http/, db/ and outbox/, the page's platform/.
 */
const SERVER_FEATURES = [
  'accounts',
  'signUp',
  'consent',
  'monitor',
  'rateLimit',
  'alerts',
];
const PAGE_FEATURES = ['signUp', 'consent', 'early'];

/**
 * `import-x/no-restricted-paths` zones: one door per feature, and floors.
 *
 * @param root the folder (`server`, `src`)
 * @param options.topUsesDoors whether the root's own files (the service's
 *   app.ts; not the page's app.tsx, which wires each feature's modules and
 *   renders its views) must use the doors too
 * @param options.also more doors of a feature for one other feature:
 *   `{ early: { consent: ['./consentDefault.ts'] } }`
 */
function featureZones(root, features, floors, { topUsesDoors, also = {} }) {
  const doors = features.flatMap((feature) => {
    const message = `Another feature imports ${root}/${feature}/ only through its index.ts.`;
    const widened = features.filter((other) => also[other]?.[feature]);
    const rest = features.filter(
      (other) => other !== feature && !widened.includes(other),
    );
    return [
      {
        target: [
          ...(topUsesDoors ? [`./${root}/*.{ts,tsx}`] : []),
          ...rest.map((other) => `./${root}/${other}/**/*`),
          ...floors.map((floor) => `./${root}/${floor}/**/*`),
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
  const floorZones = floors.map((floor) => ({
    target: `./${root}/${floor}`,
    from: features.map((feature) => `./${root}/${feature}`),
    message: `${root}/${floor}/ is a floor under the features: it imports none of them.`,
  }));
  return [...doors, ...floorZones];
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
  // server and the scripts, through the page and the shared rules, to the
  // machines, and under them the wire contract, which imports nothing.
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
      group: ['**/src/**', '**/server/**', '**/scripts/**', '**/tests/**'],
      message: 'common/ imports only contract/, machines/ and libraries.',
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
  // (D81): scripts use harness/, never a test; the harness is the floor
  // both stand on, so it imports neither.
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
  // No circle of imports anywhere, and each feature entered by its door.
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
              {
                topUsesDoors: true,
              },
            ),
            ...featureZones('src', PAGE_FEATURES, ['platform'], {
              topUsesDoors: false,
              // The early script is bundled alone by esbuild, which cannot
              // leave out an index's other exports (D116): it imports the
              // two small consent modules it needs directly.
              also: {
                early: {
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
