import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
  platform: 'node',
  // the tRPC client is bundled, so the published SDK has no runtime dependencies
  noExternal: [/^@trpc\//],
});
