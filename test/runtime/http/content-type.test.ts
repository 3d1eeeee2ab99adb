import { describe, expect, it, vi } from 'vitest';
import { contentTypeFor, extensionOf, pinnedImageType, typeByExtension } from '../../../runtime/http/content-type.ts';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const text = (s: string) => new TextEncoder().encode(s);

describe('extensionOf (Go filepath.Ext)', () => {
  it.each([
    ['/w/a.png', '.png'],
    ['/w/archive.tar.gz', '.gz'],
    ['/w/.bashrc', '.bashrc'],
    ['/w/trailing.', '.'],
    ['/w/Makefile', ''],
    ['/w/dir.d/file', ''],
    ['plain', ''],
  ])('%s → %j', (path, ext) => {
    expect(extensionOf(path)).toBe(ext);
  });
});

describe('pinned image table', () => {
  it.each([
    ['.png', 'image/png'],
    ['.jpg', 'image/jpeg'],
    ['.jpeg', 'image/jpeg'],
    ['.gif', 'image/gif'],
    ['.webp', 'image/webp'],
    ['.svg', 'image/svg+xml'],
    ['.bmp', 'image/bmp'],
    ['.ico', 'image/x-icon'],
    ['.avif', 'image/avif'],
    ['.PNG', 'image/png'],
    ['.JpEg', 'image/jpeg'],
  ])('%s → %s', (ext, type) => {
    expect(pinnedImageType(ext)).toBe(type);
  });

  it('has nothing for other extensions, nor for inherited object keys', () => {
    expect(pinnedImageType('.tiff')).toBeUndefined();
    expect(pinnedImageType('.constructor')).toBeUndefined();
    expect(pinnedImageType('')).toBeUndefined();
  });
});

describe('typeByExtension (mime table, Go-style charset for text)', () => {
  it.each([
    ['.md', 'text/markdown; charset=utf-8'],
    ['.html', 'text/html; charset=utf-8'],
    ['.js', 'text/javascript; charset=utf-8'],
    ['.css', 'text/css; charset=utf-8'],
    ['.txt', 'text/plain; charset=utf-8'],
    ['.csv', 'text/csv; charset=utf-8'],
    ['.MD', 'text/markdown; charset=utf-8'],
    ['.json', 'application/json'],
    ['.pdf', 'application/pdf'],
    ['.wasm', 'application/wasm'],
    ['.mp4', 'video/mp4'],
  ])('%s → %s', (ext, type) => {
    expect(typeByExtension(ext)).toBe(type);
  });

  it('knows nothing of unknown, empty or bare-dot extensions', () => {
    expect(typeByExtension('.zzzunknown')).toBeUndefined();
    expect(typeByExtension('')).toBeUndefined();
    expect(typeByExtension('.')).toBeUndefined();
    expect(typeByExtension('json')).toBeUndefined(); // an extension has its dot
  });
});

describe('contentTypeFor', () => {
  it('pinned images win over the mime table (.ico is image/x-icon, not image/vnd.microsoft.icon)', async () => {
    const sniff = vi.fn(async () => PNG);
    expect(await contentTypeFor('/w/favicon.ico', sniff)).toBe('image/x-icon');
    expect(await contentTypeFor('/w/PHOTO.JPG', sniff)).toBe('image/jpeg');
    expect(sniff).not.toHaveBeenCalled();
  });

  it('uses the mime table for other known extensions, without reading the file', async () => {
    const sniff = vi.fn(async () => PNG);
    expect(await contentTypeFor('/w/README.md', sniff)).toBe('text/markdown; charset=utf-8');
    expect(await contentTypeFor('/w/data.json', sniff)).toBe('application/json');
    expect(sniff).not.toHaveBeenCalled();
  });

  it('sniffs when there is no extension or an unknown one', async () => {
    expect(await contentTypeFor('/w/page', async () => text('<html><body>x</body></html>'))).toBe('text/html; charset=utf-8');
    expect(await contentTypeFor('/w/image', async () => PNG)).toBe('image/png');
    expect(await contentTypeFor('/w/notes.zzzunknown', async () => text('héllo'))).toBe('text/plain; charset=utf-8');
    expect(await contentTypeFor('/w/blob', async () => Uint8Array.from([0, 1, 2]))).toBe('application/octet-stream');
    expect(await contentTypeFor('/w/.bashrc', async () => text('export A=1\n'))).toBe('text/plain; charset=utf-8');
    expect(await contentTypeFor('/w/empty', async () => new Uint8Array())).toBe('text/plain; charset=utf-8');
  });

  it('a file named like an extension is not typed by it (Go: no dot, no extension)', async () => {
    expect(await contentTypeFor('/w/json', async () => Uint8Array.from([0]))).toBe('application/octet-stream');
  });
});
