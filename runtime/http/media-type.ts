/**
 * The Content-Type of Intentic's byte routes (`/workspace/raw`, `/workspace/media`; docs/intentic.md#byte-routes):
 * by extension only, never sniffed — a preview pane or media element gets what the name says, and anything
 * unlisted is `application/octet-stream` (with `nosniff`, a browser then renders nothing it was not told to).
 * Images are the pinned image table ori uses too; the rest are the types browsers' media elements and
 * PDF viewers expect (where the mime database differs — `audio/x-flac`, `video/x-m4v` — the standard or the
 * playable type wins).
 */
import { extensionOf, pinnedImageType } from './content-type.ts';

const DOCUMENTS_AUDIO_VIDEO: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  // audio
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.oga': 'audio/ogg',
  '.opus': 'audio/ogg', // Ogg Opus, the container .opus files are
  '.weba': 'audio/webm',
  '.flac': 'audio/flac',
  '.m4a': 'audio/mp4',
  '.aac': 'audio/aac',
  // video
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4', // MPEG-4 video; `video/x-m4v` is not a type media elements claim to play
  '.webm': 'video/webm',
  '.ogv': 'video/ogg',
  '.mov': 'video/quicktime',
  '.3gp': 'video/3gpp',
  '.mkv': 'video/x-matroska',
  '.avi': 'video/x-msvideo',
  '.wmv': 'video/x-ms-wmv',
};

export const OCTET_STREAM = 'application/octet-stream';

/** The type for `path` by its extension (case-insensitive), `application/octet-stream` for anything else. */
export function mediaTypeByExtension(path: string): string {
  const ext = extensionOf(path).toLowerCase();
  return pinnedImageType(ext) ?? (Object.hasOwn(DOCUMENTS_AUDIO_VIDEO, ext) ? DOCUMENTS_AUDIO_VIDEO[ext]! : OCTET_STREAM);
}
