import { defineConfig } from 'vitest/config';

export default defineConfig({
  // vite's warnings about third-party packages' source maps are noise in test output
  logLevel: 'error',
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/test/**/*.test.ts'],
    globalSetup: ['packages/server/test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
