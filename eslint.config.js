import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/generated/**', 'data/**', 'test-output/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // everything but the dashboard's browser app runs on Node
    ignores: ['packages/dashboard/src/**'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // type-aware: every TypeScript file belongs to a package's tsconfig (examples/ has its own); the two root
    // configuration files that belong to none are read in the project service's default project
    files: ['**/*.{ts,tsx}'],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.config.ts', 'packages/client/tsup.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // a promise is awaited or its failure handled: `void promise` is not enough
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // plain JavaScript (this file, the service's launchers, the verify app's browser scripts): no types to check
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // a long function is split into named parts with explicit dependencies (tests and benchmarks are exempt). 100,
    // not 60: at 60, some sixty service factories and dashboard pages would have to be split at once; the dashboard's
    // components count too (a component is a function: a long one is split into smaller components)
    files: ['packages/*/src/**/*.{ts,tsx}'],
    rules: { 'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }] },
  },
  {
    // the dashboard's single-page app runs in the browser: its globals, and the rules of hooks
    files: ['packages/dashboard/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // the verify app's one browser script, served as a static file
    files: ['packages/verify-web/src/assets/**/*.js'],
    languageOptions: { globals: { ...globals.browser }, sourceType: 'script' },
  },
  {
    // tests read JSON bodies whose shape is the thing under test
    files: ['**/test/**/*.ts', 'examples/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
