#!/usr/bin/env node
// The `attestation-service` command: runs the TypeScript CLI directly (Node >= 22.18 strips types natively), from
// the compile cache when it holds it (compile-cache.mjs).
import { enableCompileCache } from './compile-cache.mjs';

/**
 * V8 flags for a process that serves the API (`serve`, `serve --api`). Under any long run of allocation V8 grows the
 * young generation to its limit, two semi-spaces of 32 MB on a machine with a few GB. Capped at 2 × 8 MB, a large
 * audit export and the API under load hold less memory for a little throughput; a worker alone keeps V8's default,
 * which delivers webhooks faster. After a full collection V8 lets the old generation grow to up to four times what
 * survived before the next one, which under load is mostly promoted garbage kept resident; twice at most keeps the
 * API flat from round to round of load, and half cost a tenth of its reads in full collections (docs/decisions.md,
 * "Memory"; BENCHMARKS.md has the figures). V8 reads the flags only when the process starts, so a process started
 * without them replaces itself (execve: same pid, no second process) with one that has them. A flag the operator
 * sets, on the command line or in NODE_OPTIONS, wins.
 */
const API_V8_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=100'];
/**
 * glibc gives each thread that allocates an arena of its own (up to 8 per core), and memory freed in one stays
 * there: V8's and libuv's threads kept tens of MB so. And after the first large block it frees, glibc raises the size
 * from which it maps blocks of their own (returned to the system when freed) up to 32 MB, so later large blocks land
 * in the arenas, where they stay resident around smaller live ones; a fixed 64 KB keeps them mapped
 * (docs/decisions.md, "Memory"). Read by glibc at start, like the flags; an operator's value, or any
 * GLIBC_TUNABLES, wins.
 */
const API_MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536' };

const [command, ...rest] = process.argv.slice(2);
const servesApi =
  command === 'serve' && (rest.includes('--api') || !rest.some((arg) => arg === '--worker' || arg === '--verify'));
const nameOf = (flag) => flag.split('=')[0].replaceAll('_', '-');
const given = new Set([...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map(nameOf));
const missing = API_V8_FLAGS.filter((flag) => !given.has(nameOf(flag)));
// an operator who tunes glibc with GLIBC_TUNABLES gets exactly that
const missingEnv = process.env.GLIBC_TUNABLES
  ? []
  : Object.entries(API_MALLOC_ENV).filter(([name]) => process.env[name] === undefined);
if (servesApi && missing.length + missingEnv.length > 0 && typeof process.execve === 'function') {
  try {
    process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)], {
      ...process.env,
      ...Object.fromEntries(missingEnv),
    });
  } catch (error) {
    // returns only when the exec failed: serve anyway, with V8's defaults
    console.error(`attestation-service: running without ${missing.join(' ')} (${error?.code ?? error})`);
  }
}

enableCompileCache();
await import('../src/cli.ts');
