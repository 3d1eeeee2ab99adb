/** One file's bucket (core/classify/classify-file.ts): magic bytes, then the extension, then the text check. */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bucketOfMime, classifyFile } from '../../../core/classify/classify-file.ts';
import { PDF, PNG, RAR4, storedZip } from './samples.ts';

const classify = (path: string, bytes: Uint8Array | string) => classifyFile(path, typeof bytes === 'string' ? new TextEncoder().encode(bytes) : new Uint8Array(bytes));

describe('classifyFile', () => {
  it('magic bytes first, whatever the name says', async () => {
    expect(await classify('shot.txt', PNG)).toEqual({ path: 'shot.txt', bucket: 'media', reason: 'magic:image/png' });
    expect(await classify('paper', PDF)).toEqual({ path: 'paper', bucket: 'documents', reason: 'magic:application/pdf' });
    expect(await classify('a.bin', storedZip({ 'a.txt': 'a' }))).toEqual({ path: 'a.bin', bucket: 'archives', reason: 'magic:application/zip' });
    expect(await classify('old.rar', RAR4)).toEqual({ path: 'old.rar', bucket: 'archives', reason: 'magic:application/x-rar-compressed' });
    expect(await classify('a.gz', gzipSync('hello'))).toEqual({ path: 'a.gz', bucket: 'archives', reason: 'magic:application/gzip' });
    const docx = storedZip({
      '[Content_Types].xml':
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      'word/document.xml': '<w:document/>',
    });
    expect(await classify('report.docx', docx)).toEqual({
      path: 'report.docx',
      bucket: 'documents',
      reason: 'magic:application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    });
    // A mime outside the three lists is other.
    expect(await classify('lib.wasm', Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))).toEqual({ path: 'lib.wasm', bucket: 'other', reason: 'magic:application/wasm' });
  });

  it('then the extension (lower-cased), then the text check', async () => {
    expect(await classify('notes.MD', '# notes\n')).toEqual({ path: 'notes.MD', bucket: 'documents', reason: 'ext:.md' });
    expect(await classify('logo.svg', '<svg/>')).toEqual({ path: 'logo.svg', bucket: 'media', reason: 'ext:.svg' });
    expect(await classify('broken.zip', 'not a zip')).toEqual({ path: 'broken.zip', bucket: 'archives', reason: 'ext:.zip' });
    expect(await classify('Makefile', 'all:\n\techo ok\r\n')).toEqual({ path: 'Makefile', bucket: 'documents', reason: 'text-content' });
    expect(await classify('empty', '')).toEqual({ path: 'empty', bucket: 'documents', reason: 'text-content' });
    expect(await classify('blob', Buffer.from([1, 2, 3, 250]))).toEqual({ path: 'blob', bucket: 'other', reason: 'unknown' });
    // Only the first 4096 bytes are looked at.
    expect(await classify('late', Buffer.concat([Buffer.alloc(4096, 0x61), Buffer.from([0])]))).toEqual({ path: 'late', bucket: 'documents', reason: 'text-content' });
  });

  it('buckets of mimes', () => {
    expect(['image/webp', 'audio/mpeg', 'video/mp4'].map(bucketOfMime)).toEqual(['media', 'media', 'media']);
    expect(['application/epub+zip', 'application/vnd.oasis.opendocument.text', 'application/vnd.ms-word.document.macroenabled.12'].map(bucketOfMime)).toEqual(['documents', 'documents', 'documents']);
    expect(['application/x-tar', 'application/x-7z-compressed', 'application/x-bzip2', 'application/vnd.rar'].map(bucketOfMime)).toEqual(['archives', 'archives', 'archives', 'archives']);
    expect(['application/x-cfb', 'application/x-elf', 'application/xml'].map(bucketOfMime)).toEqual(['other', 'other', 'other']);
  });
});
