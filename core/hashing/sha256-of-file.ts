/**
 * The SHA-256 (lower-case hex) of a file's bytes, in bounded memory whatever its size. crypto.subtle.digest
 * is native and about five times faster here (≈400 vs ≈90 MB/s measured on this machine) but cannot be fed
 * in parts, so it takes files up to ONE_SHOT_MAX_BYTES in one read; larger ones stream through @noble/hashes'
 * incremental SHA-256 (audited, dependency-free, edge-clean), one chunk in memory at a time.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { FileSystem } from '../../adapters/fs/file-system.ts';

/** What an editor's text is, comfortably: hashed in one native call, at most this much held at once. */
export const ONE_SHOT_MAX_BYTES = 8 * 1024 * 1024;

/** `size` is the file's size as last seen (a stat); a file that grew past the one-shot cap is streamed. */
export async function sha256OfFile(fs: FileSystem, path: string, size: number): Promise<string> {
  if (size <= ONE_SHOT_MAX_BYTES) {
    const bytes = await fs.read(path, { offset: 0, length: ONE_SHOT_MAX_BYTES + 1 });
    if (bytes.byteLength <= ONE_SHOT_MAX_BYTES) {
      // FileSystem reads return plain ArrayBuffer-backed arrays; the cast only narrows the declared type.
      const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
      return bytesToHex(new Uint8Array(digest));
    }
  }
  const hash = sha256.create();
  const reader = (await fs.readStream(path)).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      hash.update(value);
    }
  } finally {
    reader.releaseLock();
  }
  return bytesToHex(hash.digest());
}
