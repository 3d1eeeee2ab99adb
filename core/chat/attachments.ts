/**
 * A chat's attachments (docs/noide-protocol.md#chat_stream): `base64` wins — everything up to its last comma is
 * dropped, so a `data:` URL works —, else `content` as UTF-8, else the element is skipped. Ours: bounded in
 * count and in decoded bytes, and each decoded before any file is written, so a bad one leaves nothing behind.
 */
import type { ChatAttachment } from './chat-types.ts';

export const MAX_ATTACHMENTS = 100;
export const MAX_ATTACHMENT_BYTES = 32 * 1024 * 1024;

export interface DecodedAttachment {
  /** A plain file name (no folder, no NUL), unique within the run. */
  fileName: string;
  bytes: Uint8Array;
}

export type DecodeResult = { ok: true; files: DecodedAttachment[] } | { ok: false; error: string };

export function decodeAttachments(attachments: readonly ChatAttachment[]): DecodeResult {
  if (attachments.length > MAX_ATTACHMENTS) {
    return { ok: false, error: `too many attachments (${attachments.length}; at most ${MAX_ATTACHMENTS})` };
  }
  // The total is judged before anything is decoded: a 60 MiB frame of base64 is refused without holding its bytes.
  const total = attachments.reduce((sum, attachment) => sum + decodedLength(attachment), 0);
  if (total > MAX_ATTACHMENT_BYTES) return { ok: false, error: `attachments too large (${total} bytes; at most ${MAX_ATTACHMENT_BYTES})` };
  const files: DecodedAttachment[] = [];
  const taken = new Set<string>();
  const encoder = new TextEncoder();
  for (const attachment of attachments) {
    let bytes: Uint8Array;
    if (attachment.base64 !== undefined) {
      const decoded = decodeBase64(attachment.base64.slice(attachment.base64.lastIndexOf(',') + 1));
      if (typeof decoded === 'string') return { ok: false, error: `Failed to decode attachment '${attachment.name}': ${decoded}` };
      bytes = decoded;
    } else if (attachment.content !== undefined) {
      bytes = encoder.encode(attachment.content);
    } else continue;
    files.push({ fileName: uniqueName(safeName(attachment.name, files.length), taken), bytes });
  }
  return { ok: true, files };
}

/** The bytes an attachment decodes to, worked out from its text (base64 that turns out invalid fails later). */
function decodedLength(attachment: ChatAttachment): number {
  if (attachment.base64 !== undefined) {
    const body = attachment.base64.slice(attachment.base64.lastIndexOf(',') + 1).replace(/=+$/, '');
    return Math.floor((body.length * 3) / 4);
  }
  if (attachment.content !== undefined) return utf8Length(attachment.content);
  return 0;
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3; // a lone surrogate is encoded as U+FFFD, 3 bytes
  }
  return bytes;
}

const BASE64 = /^[A-Za-z0-9+/]*$/;

/** Standard base64 with its padding, strictly: the bytes, or why not. */
function decodeBase64(text: string): Uint8Array | string {
  const body = text.replace(/=+$/, '');
  const padding = text.length - body.length;
  if (!BASE64.test(body)) {
    const at = [...body].findIndex((char) => !/[A-Za-z0-9+/]/.test(char));
    return `invalid character ${JSON.stringify(body[at])} at offset ${at}`;
  }
  if (padding > 2 || (padding > 0 && text.length % 4 !== 0) || body.length % 4 === 1) return 'invalid length or padding';
  const binary = atob(body);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The attachment's own name as a file name the CLI can show (its extension kept), never a path. */
function safeName(name: string, index: number): string {
  const base = name.split(/[/\\]/).pop()!.replace(/[\0-\x1f\x7f]/g, '').trim();
  const cut = base.length > 200 ? base.slice(base.length - 200) : base;
  return cut === '' || cut === '.' || cut === '..' ? `attachment-${index + 1}` : cut;
}

function uniqueName(name: string, taken: Set<string>): string {
  let unique = name;
  for (let n = 2; taken.has(unique); n++) unique = `${n}-${name}`;
  taken.add(unique);
  return unique;
}
