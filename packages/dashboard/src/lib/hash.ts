/** SHA-256 of a file's bytes, on this device, as the service writes content hashes: `0x` + 64 hex digits. */
export async function sha256File(file: Blob): Promise<string> {
  if (!globalThis.crypto?.subtle) {
    throw new Error('This browser cannot compute SHA-256 here (Web Crypto needs https or localhost).');
  }
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  return '0x' + Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
