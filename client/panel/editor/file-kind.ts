/**
 * How a file is shown: as text in the editor, as an image/audio/video preview, paged (text above the read cap), or
 * offered for download (binary). Decided from the name and the first bytes (docs/panel.md#editor).
 */
import { baseName } from '../shared/paths.ts';

/** `GET /api/file` reads text up to this many bytes (docs/ori.md#read); above it the file is shown paged. */
export const TEXT_CAP = 5 * 1024 * 1024;
/** How many bytes are read first to tell text from binary. */
export const SNIFF_BYTES = 8192;


export type MediaKind = 'image' | 'audio' | 'video';

// The raw route's own type tables (docs/intentic.md#byte-routes). SVG is left out on purpose: it is source text.
const IMAGE = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'bmp', 'ico', 'avif']);
const AUDIO = new Set(['mp3', 'wav', 'ogg', 'oga', 'opus', 'weba', 'flac', 'm4a', 'aac']);
const VIDEO = new Set(['mp4', 'm4v', 'webm', 'ogv', 'mov']);

function extensionOf(path: string): string {
  const name = baseName(path);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** A preview by the file's extension, else (for bytes that are not text) by the content type the daemon sniffed. */
export function mediaKindOf(path: string, contentType: string | null, binary: boolean): MediaKind | undefined {
  const extension = extensionOf(path);
  if (IMAGE.has(extension)) return 'image';
  if (AUDIO.has(extension)) return 'audio';
  if (VIDEO.has(extension)) return 'video';
  if (!binary || !contentType) return undefined;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type.startsWith('image/') && type !== 'image/svg+xml') return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  return undefined;
}

/**
 * Whether the first bytes of a file are not text: a NUL byte, or bytes that are not UTF-8 (the read route refuses
 * both with 415). `complete` says these are all the file's bytes; otherwise a character cut at the end is fine.
 */
export function looksBinary(bytes: Uint8Array, complete: boolean): boolean {
  if (bytes.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: !complete });
    return false;
  } catch {
    return true;
  }
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}
