// @ts-check
import js from '@eslint/js';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
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
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
);
