#!/usr/bin/env node
// The `attestation-service` command: runs the TypeScript CLI directly (Node >= 22.18 strips types natively), from
// the compile cache when it holds it (compile-cache.mjs).
import { enableCompileCache } from './compile-cache.mjs';

/**
 * V8 flags for a `serve` process. Under sustained allocation V8 grows the young generation to its default limit,
 * two semi-spaces of 32 MB on a machine with a few GB, for about 80 MB more RSS under load and no more throughput
 * (docs/operations.md has the figures). Flags must be given when the process starts, so a `serve` started without
 * them replaces itself (execve: same pid, no second process) with one that has them. A flag the operator sets,
 * on the command line or in NODE_OPTIONS, wins.
 */
const SERVE_V8_FLAGS = ['--max-semi-space-size=8'];

const nameOf = (flag) => flag.split('=')[0].replaceAll('_', '-');
const given = new Set([...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map(nameOf));
const missing = SERVE_V8_FLAGS.filter((flag) => !given.has(nameOf(flag)));
if (process.argv[2] === 'serve' && missing.length > 0 && typeof process.execve === 'function') {
  process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)]);
}

enableCompileCache();
await import('../src/cli.ts');
