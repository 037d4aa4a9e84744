// Fills the compile cache (bin/compile-cache.mjs) with every module the service and its CLI load, so that the
// first service started after `./dev setup` already runs without Node's type stripper in memory.
import { enableCompileCache } from '../bin/compile-cache.mjs';

enableCompileCache();
await import('../src/verify-part.ts'); // the verification app: loaded on demand, only by a process that serves it
process.argv.splice(2, Infinity, '--help'); // the CLI and everything it imports, printing only its usage
await import('../src/cli.ts');
