// Node's module compile cache for the service's TypeScript sources. Node runs them by stripping their types; the
// stripper (a WebAssembly build of swc) stays in memory for the life of a process once loaded. With
// the cache, a source whose stripped text and bytecode are cached is loaded from the cache, and a process whose
// every source is cached never loads the stripper at all. The cache is keyed by each file's content, so an edited
// source is simply stripped again. NODE_COMPILE_CACHE, when set, names another folder.
import module from 'node:module';
import { fileURLToPath } from 'node:url';

export const COMPILE_CACHE_DIR =
  process.env.NODE_COMPILE_CACHE || fileURLToPath(new URL('../node_modules/.cache/node-compile', import.meta.url));

/** Enables the cache for this process (quietly does nothing where it cannot, as Node's own API does). */
export function enableCompileCache() {
  return module.enableCompileCache?.(COMPILE_CACHE_DIR);
}
