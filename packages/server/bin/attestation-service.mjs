#!/usr/bin/env node
// Runs the TypeScript CLI directly: Node >= 22.18 strips types natively.
await import('../src/cli.ts');
