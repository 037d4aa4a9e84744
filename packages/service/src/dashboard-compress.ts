import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

export type Encoding = 'br' | 'gzip';

const SUFFIX: Record<Encoding, string> = { br: '.br', gzip: '.gz' };
const COMPRESSIBLE = new Set([
  '.js',
  '.mjs',
  '.css',
  '.html',
  '.json',
  '.map',
  '.svg',
  '.txt',
  '.webmanifest',
  '.wasm',
]);
/** Compressed copies kept in memory: a build's assets are a few hundred KB; the cap only guards a strange dist. */
const CACHE_LIMIT_BYTES = 32 * 1024 * 1024;

const compressors: Record<Encoding, (data: Buffer) => Promise<Buffer>> = {
  br: (data) =>
    promisify(brotliCompress)(data, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
    }),
  gzip: (data) => promisify(gzip)(data, { level: 9 }),
};

const cache = new Map<string, Promise<Buffer>>();
let cachedBytes = 0;

/**
 * A file's body in the best encoding the client takes: a precompressed sibling (`app.js.br`, `app.js.gz`) when the
 * build wrote one, else compressed here once per file version and kept, else the file as it is.
 */
export async function compressedAsset(
  file: string,
  accepted: Encoding[],
): Promise<{ data: Buffer; encoding?: Encoding }> {
  for (const encoding of accepted) {
    const sibling = await readFile(file + SUFFIX[encoding]).catch(() => undefined);
    if (sibling) return { data: sibling, encoding };
  }
  const encoding = accepted[0];
  if (!encoding || !COMPRESSIBLE.has(extname(file).toLowerCase())) return { data: await readFile(file) };
  const { mtimeMs, size } = await stat(file);
  const key = `${encoding}:${mtimeMs}:${file}`;
  let compressed = cache.get(key);
  if (!compressed) {
    const data = await readFile(file);
    if (size < 1024 || cachedBytes + size > CACHE_LIMIT_BYTES) return { data };
    cachedBytes += size;
    compressed = compressors[encoding](data);
    cache.set(key, compressed);
  }
  return { data: await compressed, encoding };
}
