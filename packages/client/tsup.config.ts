import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'es2022',
    // no runtime's built-ins: the same files run in Node, Deno, Bun, browsers and edge workers (Web Crypto, fetch)
    platform: 'neutral',
    mainFields: ['module', 'main'],
    // the tRPC client and the protocol (a private workspace package: its code and its types) are bundled; the runtime
    // dependencies stay external so an app shares them (viem above all)
    noExternal: [/^@trpc\//, '@attestation-service/protocol'],
  },
  {
    // one self-contained ES module for a page without a bundler (`@attestation-service/client/browser`)
    entry: { browser: 'src/index.ts' },
    format: ['esm'],
    // viem's lazy imports inlined: a page loads one file
    splitting: false,
    sourcemap: true,
    minify: true,
    target: 'es2022',
    platform: 'browser',
    noExternal: [/./],
  },
]);
