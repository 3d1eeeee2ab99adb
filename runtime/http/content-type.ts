/**
 * The Content-Type of a served file (docs/ori.md#raw, `GET /api/raw`), decided in this order:
 * 1. the pinned image table (case-insensitive extension);
 * 2. the standard mime table (the `mime` package), text types with `; charset=utf-8` as Go's
 *    `mime.TypeByExtension` gives them;
 * 3. sniffing of the first 512 bytes (Go's `http.DetectContentType`).
 * Runtime-neutral: the bytes to sniff come from a callback, read only when steps 1 and 2 find nothing.
 */
import mime from 'mime';
import { detectContentType } from './sniff.ts';

/** ori's pinned image types: these win over whatever the mime table says. */
const PINNED_IMAGES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.bmp': 'image/bmp',
  '.ico': 'image/x-icon',
  '.avif': 'image/avif',
};

/**
 * Go's `filepath.Ext` on a POSIX path: the suffix from the last dot of the last segment ("" when that
 * segment has no dot). ".bashrc" → ".bashrc", "a." → ".", "dir.d/file" → "".
 */
export function extensionOf(path: string): string {
  for (let i = path.length - 1; i >= 0 && path[i] !== '/'; i--) {
    if (path[i] === '.') return path.slice(i);
  }
  return '';
}

/** The pinned image type for an extension (with its dot), if any. */
export function pinnedImageType(ext: string): string | undefined {
  return Object.hasOwn(PINNED_IMAGES, ext.toLowerCase()) ? PINNED_IMAGES[ext.toLowerCase()] : undefined;
}

/**
 * The mime table's type for an extension (with its dot), like Go's `mime.TypeByExtension`:
 * case-insensitive, and a `text/*` type without a charset gets `; charset=utf-8`.
 */
export function typeByExtension(ext: string): string | undefined {
  if (ext.length < 2 || !ext.startsWith('.')) return undefined;
  const type = mime.getType(ext.slice(1));
  if (!type) return undefined;
  if (type.toLowerCase().startsWith('text/') && !/;\s*charset=/i.test(type)) return `${type}; charset=utf-8`;
  return type;
}

/**
 * The Content-Type for the file at `path`. `sniff` is called only when the extension decides nothing; it
 * should return the file's first bytes (512 are enough — see SNIFF_LEN).
 */
export async function contentTypeFor(path: string, sniff: () => Promise<Uint8Array>): Promise<string> {
  const ext = extensionOf(path);
  return pinnedImageType(ext) ?? typeByExtension(ext) ?? detectContentType(await sniff());
}
