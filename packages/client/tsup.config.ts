import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
  platform: 'node',
  // the tRPC client is bundled; the one runtime dependency is @openzeppelin/merkle-tree (verifyAnchor checks proofs
  // with the maintained verifier the service's trees come from)
  noExternal: [/^@trpc\//],
});
