/**
 * One file's bucket (docs/intentic-projects.md#classify `GET /workspace/classify`), first rule that applies:
 * (1) magic bytes, by `file-type` (its core entry: no `node:*`), reason `magic:<mime>`: `image/* audio/* video/*`
 *     media; PDF, Word, OOXML, ODF, EPUB documents; zip, tar, gzip, 7z, bzip2, rar archives; any other mime other;
 * (2) the extension, reason `ext:.md`;
 * (3) the first 4096 bytes hold no byte below 32 but tab, LF and CR: documents `text-content`; else other `unknown`.
 * A legacy Office file is detected as `application/x-cfb` (the OLE container, shared with .msi and others), so it
 * lands in other: no Word mime is ever reported for it.
 */
import { fileTypeFromBuffer } from 'file-type/core';

export type Bucket = 'repositories' | 'documents' | 'media' | 'archives' | 'other';

export interface Classification {
  path: string;
  bucket: Bucket;
  reason: string;
}

/** Bytes a file's classification reads at most (file-type's detection window). */
export const PROBE_BYTES = 4100;
const TEXT_PROBE_BYTES = 4096;

const DOCUMENT_MIMES = new Set(['application/pdf', 'application/msword', 'application/epub+zip']);
const DOCUMENT_MIME_PREFIXES = [
  'application/vnd.openxmlformats-officedocument.', // OOXML
  'application/vnd.ms-word.', 'application/vnd.ms-excel.', 'application/vnd.ms-powerpoint.', // OOXML, macro-enabled
  'application/vnd.oasis.opendocument.', // ODF
];
const ARCHIVE_MIMES = new Set([
  'application/zip', 'application/x-tar', 'application/gzip', 'application/x-7z-compressed', 'application/x-bzip2',
  'application/vnd.rar', 'application/x-rar-compressed',
]);

const BY_EXTENSION: Record<string, Bucket> = {};
for (const ext of ['.pdf', '.doc', '.docx', '.odt', '.rtf', '.txt', '.md', '.csv', '.xls', '.xlsx', '.ods', '.ppt', '.pptx', '.odp', '.epub']) BY_EXTENSION[ext] = 'documents';
for (const ext of ['.png', '.jpg', '.jpeg', '.gif', '.webp', '.svg', '.mp3', '.wav', '.flac', '.mp4', '.mov', '.mkv']) BY_EXTENSION[ext] = 'media';
for (const ext of ['.zip', '.tar', '.gz', '.tgz', '.7z', '.rar', '.bz2']) BY_EXTENSION[ext] = 'archives';

export function bucketOfMime(mime: string): Bucket {
  if (mime.startsWith('image/') || mime.startsWith('audio/') || mime.startsWith('video/')) return 'media';
  if (DOCUMENT_MIMES.has(mime) || DOCUMENT_MIME_PREFIXES.some((prefix) => mime.startsWith(prefix))) return 'documents';
  if (ARCHIVE_MIMES.has(mime)) return 'archives';
  return 'other';
}

/** The classification of the file at root-relative `path` whose first bytes are `head` (≥ PROBE_BYTES, or all). */
export async function classifyFile(path: string, head: Uint8Array): Promise<Classification> {
  let mime: string | undefined;
  try {
    mime = (await fileTypeFromBuffer(head))?.mime;
  } catch {
    mime = undefined; // a malformed container file-type gives up on: the next rules decide
  }
  if (mime !== undefined) return { path, bucket: bucketOfMime(mime), reason: `magic:${mime}` };
  const ext = extensionOf(path);
  const byExtension = BY_EXTENSION[ext];
  if (byExtension) return { path, bucket: byExtension, reason: `ext:${ext}` };
  return isPlainText(head) ? { path, bucket: 'documents', reason: 'text-content' } : { path, bucket: 'other', reason: 'unknown' };
}

function isPlainText(head: Uint8Array): boolean {
  const end = Math.min(head.length, TEXT_PROBE_BYTES);
  for (let i = 0; i < end; i++) {
    const byte = head[i]!;
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 13) return false;
  }
  return true;
}

function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot).toLowerCase();
}
