/**
 * The extraction engine over both backends and both zip adapters (yauzl's on Node, the Web one for Workers), with
 * archives written by hand (test/support/zip-writer.ts): what lands where, what is refused, and that a refused or
 * failed archive leaves the tree exactly as it was. The adapters report alike, so every expectation holds for both.
 */
import { stat } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { WebZipAdapter } from '../../../adapters/archive/web-zip-adapter.ts';
import { YauzlZipAdapter } from '../../../adapters/archive/yauzl-zip-adapter.ts';
import type { ZipAdapter, ZipEntryInfo } from '../../../adapters/archive/zip-adapter.ts';
import { extractZip } from '../../../core/archive/extract-zip.ts';
import type { ZipCaps } from '../../../core/archive/zip-caps.ts';
import { resolveInsideRoot } from '../../../core/paths/resolve-inside-root.ts';
import { BACKENDS, createFixture, type Fixture, type Seed } from '../../support/backends.ts';
import { buildZip, file, folder, symlink, type ZipEntrySpec } from '../../support/zip-writer.ts';

const defaultCaps: ZipCaps = { maxEntries: 10_000, maxBytes: 1024 * 1024 * 1024, maxRatio: 200 };

const ADAPTERS = { yauzl: () => new YauzlZipAdapter(), web: () => new WebZipAdapter() } satisfies Record<string, () => ZipAdapter>;
const COMBINATIONS = BACKENDS.flatMap((backend) => Object.keys(ADAPTERS).map((adapter) => [backend, adapter as keyof typeof ADAPTERS] as const));

describe.each(COMBINATIONS)('extractZip (%s, %s adapter)', (backend, adapterName) => {
  let fx: Fixture;
  afterEach(() => fx?.cleanup());

  async function setup(seed: Seed = {}): Promise<Fixture> {
    fx = await createFixture(backend, seed);
    return fx;
  }

  function extract(entries: ZipEntrySpec[] | Uint8Array, dest: string, caps: Partial<ZipCaps> = {}, zip: ZipAdapter = ADAPTERS[adapterName]()) {
    const bytes = entries instanceof Uint8Array ? entries : buildZip(entries);
    return extractZip(bytes, dest, {
      fs: fx.fs,
      zip,
      resolve: (path) => resolveInsideRoot(fx.fs, fx.root, path),
      caps: { ...defaultCaps, ...caps },
    });
  }

  /** Runs `extract` expecting a refusal; returns its message after checking nothing changed anywhere. */
  async function refused(run: () => Promise<unknown>): Promise<string> {
    const before = await fx.tree();
    const outsideBefore = await fx.outsideTree();
    const message = await run().then(
      () => {
        throw new Error('the extraction succeeded');
      },
      (error: Error) => error.message,
    );
    expect(await fx.tree()).toEqual(before);
    expect(await fx.outsideTree()).toEqual(outsideBefore);
    return message;
  }

  it('extracts nested folders, unicode names and empty files; answers every entry’s absolute path in archive order', async () => {
    await setup({ 'keep.txt': 'kept' });
    const dest = `${fx.root}/out`;
    const result = await extract(
      [
        folder('a'),
        file('a/b/c.txt', 'deep'),
        file('ünï/日本.txt', 'こんにちは'),
        file('empty', ''),
        file('big.txt', 'line\n'.repeat(10_000)),
        file('./dot/x.txt', 'x'),
      ],
      dest,
    );
    expect(result).toEqual([
      `${dest}/a`,
      `${dest}/a/b/c.txt`,
      `${dest}/ünï/日本.txt`,
      `${dest}/empty`,
      `${dest}/big.txt`,
      `${dest}/dot/x.txt`,
    ]);
    expect(await fx.tree()).toEqual({
      'keep.txt': 'kept',
      out: '<dir>',
      'out/a': '<dir>',
      'out/a/b': '<dir>',
      'out/a/b/c.txt': 'deep',
      'out/big.txt': 'line\n'.repeat(10_000),
      'out/dot': '<dir>',
      'out/dot/x.txt': 'x',
      'out/empty': '',
      'out/ünï': '<dir>',
      'out/ünï/日本.txt': 'こんにちは',
    });
  });

  it('overwrites existing files, keeps what the archive does not name, and merges into existing folders', async () => {
    await setup({ 'd/a.txt': 'old', 'd/other.txt': 'other', 'd/sub/keep': 'k' });
    await extract([file('a.txt', 'new'), file('sub/added', 'added')], `${fx.root}/d`);
    expect(await fx.tree()).toEqual({
      d: '<dir>',
      'd/a.txt': 'new',
      'd/other.txt': 'other',
      'd/sub': '<dir>',
      'd/sub/added': 'added',
      'd/sub/keep': 'k',
    });
  });

  it('lands in a folder reached through a link inside the destination, at the link’s real target', async () => {
    await setup({ 'd/real/': '', 'd/alias': { link: 'real' }, 'd/f-link': { link: 'real/f.txt' }, 'd/real/f.txt': 'old' });
    const result = await extract([file('alias/x.txt', 'x'), file('f-link', 'through the link')], `${fx.root}/d`);
    expect(result).toEqual([`${fx.root}/d/alias/x.txt`, `${fx.root}/d/f-link`]);
    expect(await fx.tree()).toEqual({
      d: '<dir>',
      'd/alias': '-> real',
      'd/f-link': '-> real/f.txt',
      'd/real': '<dir>',
      'd/real/f.txt': 'through the link',
      'd/real/x.txt': 'x',
    });
  });

  it('writes through a dangling link inside the destination to its target, if the target’s folder exists', async () => {
    await setup({ 'd/real/': '', 'd/dangling': { link: 'real/made.txt' }, 'd/nowhere': { link: 'missing/x.txt' } });
    expect(await extract([file('dangling', 'made')], `${fx.root}/d`)).toEqual([`${fx.root}/d/dangling`]);
    expect(await fx.tree()).toMatchObject({ 'd/real/made.txt': 'made' });
    expect(await refused(() => extract([file('ok', 'x'), file('nowhere', 'x')], `${fx.root}/d`))).toBe(
      `Cannot extract nowhere: ${fx.root}/d/nowhere is a link to a missing folder`,
    );
  });

  it.each([
    '../evil.txt',
    'a/../../evil.txt',
    'a/../b.txt', // stays inside, but a `..` is never trusted
    '/etc/evil',
    'C:/evil.txt',
    'C:evil.txt',
    '..\\evil.txt',
    'a\\b.txt',
    'nul\0byte',
    `${'x'.repeat(256)}.txt`,
  ])('refuses the whole archive for the entry name %j, writing nothing', async (name) => {
    await setup({ 'd/keep.txt': 'kept' });
    const message = await refused(() => extract([file('first.txt', 'ok'), file(name, 'evil'), file('last.txt', 'ok')], `${fx.root}/d`));
    expect(message).toBe(`Invalid zip entry: ${name}`);
  });

  it('refuses a symlink entry (and a special file), whatever it points at', async () => {
    await setup();
    expect(await refused(() => extract([file('a', 'x'), symlink('l', 'a')], `${fx.root}/d`))).toBe('Invalid zip entry: l');
    expect(await refused(() => extract([{ name: 'fifo', unixMode: 0o010644 }], `${fx.root}/d`))).toBe('Invalid zip entry: fifo');
  });

  it('refuses an entry whose real path leaves the destination through a link already there', async () => {
    await setup({
      'd/out': { link: '$OUTSIDE' },
      'd/secret': { link: '$OUTSIDE/secret.txt' },
      'd/up': { link: '..' },
      'sibling.txt': 'sibling',
    });
    const dest = `${fx.root}/d`;
    expect(await refused(() => extract([file('out/x.txt', 'evil')], dest))).toBe('Invalid zip entry: out/x.txt');
    expect(await refused(() => extract([file('secret', 'evil')], dest))).toBe('Invalid zip entry: secret');
    // Inside the workspace, but outside the destination.
    expect(await refused(() => extract([file('up/sibling.txt', 'evil')], dest))).toBe('Invalid zip entry: up/sibling.txt');
  });

  it('refuses, before writing anything, a file where a folder must go and a folder where a file must go', async () => {
    await setup({ 'd/a': 'a file', 'd/dir/': '' });
    const dest = `${fx.root}/d`;
    expect(await refused(() => extract([file('ok.txt', 'x'), file('a/b.txt', 'x')], dest))).toBe(
      `Cannot extract a/b.txt: ${dest}/a is not a folder`,
    );
    expect(await refused(() => extract([file('ok.txt', 'x'), folder('a')], dest))).toBe(`Cannot extract a/: ${dest}/a is not a folder`);
    expect(await refused(() => extract([file('ok.txt', 'x'), file('dir', 'x')], dest))).toBe(`Cannot extract dir: ${dest}/dir is a folder`);
  });

  it('refuses entries that collide inside the archive', async () => {
    await setup();
    const dest = `${fx.root}/d`;
    const collision = 'Invalid zip entry: NAME (another entry is already at that path)';
    expect(await refused(() => extract([file('a', 'x'), file('a/b', 'y')], dest))).toBe(collision.replace('NAME', 'a/b'));
    expect(await refused(() => extract([file('a/b', 'y'), file('a', 'x')], dest))).toBe(collision.replace('NAME', 'a'));
    expect(await refused(() => extract([file('a', 'x'), file('./a', 'y')], dest))).toBe(collision.replace('NAME', './a'));
    expect(await refused(() => extract([file('a', 'x'), folder('a')], dest))).toBe(collision.replace('NAME', 'a/'));
  });

  it('makes a missing destination (and its parents), and removes them again when the archive fails', async () => {
    await setup();
    expect(await extract([file('x.txt', 'x')], `${fx.root}/new/deeper`)).toEqual([`${fx.root}/new/deeper/x.txt`]);
    expect(await fx.tree()).toEqual({ new: '<dir>', 'new/deeper': '<dir>', 'new/deeper/x.txt': 'x' });
    const message = await refused(() => extract([file('x.txt', 'x'), file('bad.txt', 'data', { crc: 1 })], `${fx.root}/other/dest`));
    expect(message).toBe('Cannot extract bad.txt: CRC-32 mismatch: the data is corrupt');
  });

  it('a corrupt entry mid-archive leaves nothing behind: no file, no folder, no staging folder', async () => {
    await setup({ 'd/a.txt': 'old' });
    const message = await refused(() =>
      extract(
        [file('a.txt', 'new'), file('sub/one.txt', 'one'), file('sub/bad.bin', 'x'.repeat(1000), { storedBytes: new Uint8Array([1, 2, 3, 4]) }), file('z.txt', 'z')],
        `${fx.root}/d`,
      ),
    );
    expect(message).toMatch(/^Cannot extract sub\/bad\.bin: invalid compressed data \(.+\)$/);
  });

  it('a header lying about its size fails the archive once the data runs past it', async () => {
    await setup();
    const message = await refused(() => extract([file('ok.txt', 'ok'), file('lies.bin', new Uint8Array(4 * 1024 * 1024), { declaredSize: 100 })], `${fx.root}/d`));
    expect(message).toBe('Cannot extract lies.bin: its data inflates past the declared 100 bytes');
  });

  it('counts the bytes itself: an adapter that lets a lying entry through is still held to the declared size', async () => {
    await setup();
    const lying: ZipAdapter = {
      async open() {
        const entries: ZipEntryInfo[] = [
          { name: 'ok.txt', compressedSize: 2, uncompressedSize: 2, kind: 'file', mode: undefined },
          { name: 'lies.bin', compressedSize: 10, uncompressedSize: 5, kind: 'file', mode: undefined },
        ];
        return {
          entryCount: entries.length,
          readEntries: async () => entries,
          open: async (entry) => new Blob([entry.name === 'ok.txt' ? 'ok' : 'many more than five bytes']).stream(),
          close() {},
        };
      },
    };
    const message = await refused(() => extract(new Uint8Array(), `${fx.root}/d`, {}, lying));
    expect(message).toBe('Cannot extract lies.bin: its data inflates past the declared 5 bytes');
  });

  it('caps the entry count, from the end record, before reading the entries', async () => {
    await setup();
    const entries = [file('a', '1'), file('b', '2'), file('c', '3')];
    expect(await refused(() => extract(entries, `${fx.root}/d`, { maxEntries: 2 }))).toBe('Zip too large: 3 entries (the limit is 2)');
    expect(await extract(entries, `${fx.root}/d`, { maxEntries: 3 })).toHaveLength(3);
  });

  it('caps the uncompressed bytes in all, on the declared sizes', async () => {
    await setup();
    const entries = [file('a', 'x'.repeat(400)), file('b', 'y'.repeat(400)), file('c', 'z'.repeat(400))];
    expect(await refused(() => extract(entries, `${fx.root}/d`, { maxBytes: 1199 }))).toBe(
      'Zip too large: 1200 bytes uncompressed (the limit is 1199 in all)',
    );
    expect(await extract(entries, `${fx.root}/d`, { maxBytes: 1200 })).toHaveLength(3);
  });

  it('caps the compression ratio of each entry past 100 KiB; smaller entries may compress better', async () => {
    await setup();
    const zeros = (n: number) => new Uint8Array(n);
    const message = await refused(() => extract([file('ok.txt', 'ok'), file('bomb.bin', zeros(2 * 1024 * 1024))], `${fx.root}/d`));
    expect(message).toMatch(/^Zip too large: bomb\.bin expands \d+:1 \(the limit is 200:1 per entry\)$/);
    // 100 KiB of zeros deflates ~1000:1, within the grace.
    expect(await extract([file('small-zeros.bin', zeros(100 * 1024))], `${fx.root}/d`)).toEqual([`${fx.root}/d/small-zeros.bin`]);
  });

  it('refuses bytes that are not a zip archive', async () => {
    await setup();
    const message = await refused(() => extract(new TextEncoder().encode('PK but not really'), `${fx.root}/d`));
    expect(message).toMatch(/^Not a zip archive: /);
  });

  if (backend === 'node') {
    it('keeps the permission bits of files (not setuid or setgid)', async () => {
      await setup();
      await extract(
        [file('run.sh', '#!/bin/sh\n', { unixMode: 0o100755 }), file('ro.txt', 'r', { unixMode: 0o100444 }), file('suid', 's', { unixMode: 0o104755 })],
        `${fx.root}/d`,
      );
      const mode = async (name: string) => (await stat(`${fx.root}/d/${name}`)).mode & 0o7777;
      expect([await mode('run.sh'), await mode('ro.txt'), await mode('suid')]).toEqual([0o755, 0o444, 0o755]);
    });
  }
});
