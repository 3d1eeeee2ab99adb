/** Attachments decoded before any file is written: base64 (data: URLs too) wins over content; bounded. */
import { describe, expect, it } from 'vitest';
import { decodeAttachments, MAX_ATTACHMENT_BYTES } from '../../../core/chat/attachments.ts';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('decodeAttachments', () => {
  it('base64 wins, a data: URL works, content is UTF-8, an element with neither is skipped', () => {
    const result = decodeAttachments([
      { name: 'a.txt', content: 'plain é' },
      { name: 'b.png', base64: 'data:image/png;base64,aGk=', content: 'ignored' },
      { name: 'c.bin', base64: 'AAEC' },
      { name: 'skipped' },
    ]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.files.map((file) => file.fileName)).toEqual(['a.txt', 'b.png', 'c.bin']);
    expect(text(result.files[0]!.bytes)).toBe('plain é');
    expect(text(result.files[1]!.bytes)).toBe('hi');
    expect([...result.files[2]!.bytes]).toEqual([0, 1, 2]);
  });

  it('names files after the attachment without its folders, unique within the run', () => {
    const result = decodeAttachments([
      { name: '../../etc/passwd', content: 'x' },
      { name: 'dir\\win.txt', content: 'x' },
      { name: 'passwd', content: 'x' },
      { name: '..', content: 'x' },
      { name: 'bad\0name\n.md', content: 'x' },
    ]);
    expect(result.ok && result.files.map((file) => file.fileName)).toEqual(['passwd', 'win.txt', '2-passwd', 'attachment-4', 'badname.md']);
  });

  it('invalid base64 is the protocol text with its reason', () => {
    expect(decodeAttachments([{ name: 'x.png', base64: 'data:,ab$d' }])).toEqual({ ok: false, error: `Failed to decode attachment 'x.png': invalid character "$" at offset 2` });
    expect(decodeAttachments([{ name: 'y', base64: 'abc' }])).toEqual({ ok: true, files: [{ fileName: 'y', bytes: new Uint8Array([105, 183]) }] });
    expect(decodeAttachments([{ name: 'z', base64: 'a' }])).toEqual({ ok: false, error: "Failed to decode attachment 'z': invalid length or padding" });
    expect(decodeAttachments([{ name: 'z', base64: 'ab===' }])).toEqual({ ok: false, error: "Failed to decode attachment 'z': invalid length or padding" });
  });

  it('counts the decoded bytes before decoding: UTF-8 of content, 3/4 of base64', () => {
    const big = 'é'.repeat(MAX_ATTACHMENT_BYTES / 4) + '😀'.repeat(MAX_ATTACHMENT_BYTES / 8) + 'x';
    expect(decodeAttachments([{ name: 'a', content: big }])).toEqual({ ok: false, error: `attachments too large (${MAX_ATTACHMENT_BYTES + 1} bytes; at most 33554432)` });
    const quads = Math.floor(MAX_ATTACHMENT_BYTES / 3) + 1; // 4 characters of base64 are 3 bytes
    const base64 = 'data:application/octet-stream;base64,' + 'AAAA'.repeat(quads);
    expect(decodeAttachments([{ name: 'b', base64 }])).toEqual({ ok: false, error: `attachments too large (${quads * 3} bytes; at most 33554432)` });
    expect(decodeAttachments([{ name: 'c', base64: 'AAAA'.repeat(MAX_ATTACHMENT_BYTES / 4) }]).ok).toBe(true);
  });

  it('refuses more than 100 attachments and more than 32 MiB decoded', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => ({ name: `f${i}`, content: 'x' }));
    expect(decodeAttachments(many)).toEqual({ ok: false, error: 'too many attachments (10000; at most 100)' });
    expect(decodeAttachments(many.slice(0, 100)).ok).toBe(true);
    const big = 'x'.repeat(MAX_ATTACHMENT_BYTES / 2 + 1);
    expect(decodeAttachments([{ name: 'a', content: big }, { name: 'b', content: big }])).toEqual({
      ok: false,
      error: `attachments too large (${2 * big.length} bytes; at most 33554432)`,
    });
  });
});
