/**
 * Parsed rules files shared across walks (core/ignore/parsed-rules-cache.ts): a fresh IgnoreRules over the same
 * FileSystem reuses an unchanged `.gitignore` without reading it, and never an outdated or another backend's one.
 */
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { createIgnoreRules } from '../../../core/ignore/ignore-rules.ts';
import { MAX_CACHED_FILES, parsedRules } from '../../../core/ignore/parsed-rules-cache.ts';
import { newMatcher } from '../../../core/ignore/rules-file.ts';

/** `fs` with its reads counted (one wrapper per test: the cache is per FileSystem instance). */
function countingReads(fs: FileSystem): { fs: FileSystem; reads: string[] } {
  const reads: string[] = [];
  const counted = Object.create(fs) as FileSystem;
  counted.read = (path, range) => {
    reads.push(path);
    return fs.read(path, range);
  };
  return { fs: counted, reads };
}

const ignored = async (fs: FileSystem, rel: string) => createIgnoreRules(fs, '/ws').isIgnored(rel, false);

describe('parsed rules shared across IgnoreRules', () => {
  it('a fresh IgnoreRules reuses an unchanged .gitignore without reading it again', async () => {
    const { fs, reads } = countingReads(new MemoryFileSystem({ '/ws/.gitignore': '*.log\n', '/ws/a/.gitignore': '*.tmp\n' }));
    expect(await ignored(fs, 'a/x.tmp')).toBe(true);
    expect(await ignored(fs, 'a/x.log')).toBe(true);
    expect(await ignored(fs, 'a/x.txt')).toBe(false);
    expect(reads.sort()).toEqual(['/ws/.gitignore', '/ws/a/.gitignore']);
  });

  it('reads it again once it changed, and answers by the new rules', async () => {
    const memory = new MemoryFileSystem({ '/ws/.gitignore': '*.log\n' });
    const { fs, reads } = countingReads(memory);
    expect(await ignored(fs, 'x.log')).toBe(true);
    await memory.write('/ws/.gitignore', '*.txt\n');
    expect(await ignored(fs, 'x.log')).toBe(false);
    expect(await ignored(fs, 'x.txt')).toBe(true);
    expect(reads).toEqual(['/ws/.gitignore', '/ws/.gitignore']);
  });

  it('a .gitignore that became a symlink or vanished is no longer applied', async () => {
    const memory = new MemoryFileSystem({ '/ws/.gitignore': '*.log\n', '/ws/rules': '*.log\n' });
    expect(await ignored(memory, 'x.log')).toBe(true);
    await memory.remove('/ws/.gitignore');
    expect(await ignored(memory, 'x.log')).toBe(false);
    await memory.symlink('rules', '/ws/.gitignore');
    expect(await ignored(memory, 'x.log')).toBe(false); // rules files are never followed (git 2.32+)
  });

  it('never shares between FileSystems, even at the same path and version', async () => {
    const one = new MemoryFileSystem({ '/ws/.gitignore': '*.log\n' });
    const two = new MemoryFileSystem({ '/ws/.gitignore': '*.txt\n' });
    expect((await one.lstat('/ws/.gitignore')).version).toBe((await two.lstat('/ws/.gitignore')).version);
    expect(await ignored(one, 'x.log')).toBe(true);
    expect(await ignored(two, 'x.log')).toBe(false);
    expect(await ignored(two, 'x.txt')).toBe(true);
  });

  it('sees a file rewritten in place on disk (the NodeFileSystem version: mtime, size and inode)', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'rules-cache-')));
    try {
      const fs = new NodeFileSystem();
      await writeFile(join(root, '.gitignore'), '*.log\n');
      expect(await createIgnoreRules(fs, root).isIgnored('x.log', false)).toBe(true);
      // In place (same inode), within the same timestamp tick perhaps: the size still moves the version.
      await writeFile(join(root, '.gitignore'), '*.txt\n*.md\n');
      expect(await createIgnoreRules(fs, root).isIgnored('x.log', false)).toBe(false);
      expect(await createIgnoreRules(fs, root).isIgnored('x.txt', false)).toBe(true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it(`keeps at most ${MAX_CACHED_FILES} files per FileSystem, dropping the least recently used`, async () => {
    const fs = new MemoryFileSystem({});
    let parses = 0;
    const parse = async () => {
      parses++;
      return newMatcher();
    };
    for (let i = 0; i <= MAX_CACHED_FILES; i++) await parsedRules(fs, `/f${i}`, 'v', parse);
    expect(parses).toBe(MAX_CACHED_FILES + 1);
    await parsedRules(fs, `/f${MAX_CACHED_FILES}`, 'v', parse); // the newest is still there
    expect(parses).toBe(MAX_CACHED_FILES + 1);
    await parsedRules(fs, '/f0', 'v', parse); // the oldest was dropped
    expect(parses).toBe(MAX_CACHED_FILES + 2);
  });

  it('does not keep a failed read', async () => {
    const fs = new MemoryFileSystem({});
    const failing = () => Promise.reject(new Error('boom'));
    await expect(parsedRules(fs, '/f', 'v', failing)).rejects.toThrow('boom');
    const rules = newMatcher().add('*.log');
    expect(await parsedRules(fs, '/f', 'v', async () => rules)).toBe(rules);
  });
});
