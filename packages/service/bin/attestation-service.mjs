#!/usr/bin/env node
// The `attestation-service` command: runs the TypeScript CLI directly (Node >= 22.18 strips types natively), from
// the compile cache when it holds it (compile-cache.mjs).
import { enableCompileCache } from './compile-cache.mjs';

/**
 * V8 flags for a process that serves the API (`serve`, `serve --api`). Under any long run of allocation V8 grows the
 * young generation to its limit, two semi-spaces of 32 MB on a machine with a few GB. Capped at 2 × 8 MB, a
 * 1 000 000-row audit export peaks at 142 MB instead of 161, and the API holds 28–64 MB less under load, for about
 * 8 % of its read and 3–12 % of its create throughput. A worker alone keeps V8's default: with 8 MB it delivered
 * webhooks 15 % slower. docs/operations.md has the figures. V8 reads the flag only when the process starts, so a process
 * started without it replaces itself (execve: same pid, no second process) with one that has it. A flag the operator
 * sets, on the command line or in NODE_OPTIONS, wins.
 */
const API_V8_FLAGS = ['--max-semi-space-size=8'];

const [command, ...rest] = process.argv.slice(2);
const servesApi =
  command === 'serve' && (rest.includes('--api') || !rest.some((arg) => arg === '--worker' || arg === '--verify'));
const nameOf = (flag) => flag.split('=')[0].replaceAll('_', '-');
const given = new Set([...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map(nameOf));
const missing = API_V8_FLAGS.filter((flag) => !given.has(nameOf(flag)));
if (servesApi && missing.length > 0 && typeof process.execve === 'function') {
  try {
    process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)]);
  } catch (error) {
    // returns only when the exec failed: serve anyway, with V8's defaults
    console.error(`attestation-service: running without ${missing.join(' ')} (${error?.code ?? error})`);
  }
}

enableCompileCache();
await import('../src/cli.ts');
