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
