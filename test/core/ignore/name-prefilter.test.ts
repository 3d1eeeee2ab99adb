/**
 * The names a rules file could match (core/ignore/name-prefilter.ts): what it rules out, that it never rules
 * out a name one of the file's patterns matches (checked against the `ignore` matcher itself, at several depths),
 * and that a walk's folder matcher no longer runs the `ignore` matcher for names the prefilter rules out.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { createIgnoreRules } from '../../../core/ignore/ignore-rules.ts';
import { namePrefilter } from '../../../core/ignore/name-prefilter.ts';
import { newMatcher } from '../../../core/ignore/rules-file.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const KERNEL_LIKE = [
  '# a comment',
  '.*',
  '*.o',
  '*.mod.c',
  '*.asn1.[ch]',
  '*.c.[012]*.*',
  'cscope.*',
  '*~',
  '\\#*#',
  'Module.symvers',
  '/vmlinux',
  '/arch/*/include/generated/',
  'sphinx_*/',
  '!.gitignore',
  'patches-*',
  'x?z',
  '',
].join('\n');

describe('namePrefilter', () => {
  it('rules out names no last segment can match; keeps exact names, prefixes, suffixes and inner literals', () => {
    const names = namePrefilter(KERNEL_LIKE);
    for (const name of ['.git', 'a.o', 'x.mod.c', 'y.asn1.c', 'z.c.0a.b', 'cscope.out', 'f~', '#a#', 'Module.symvers',
      'vmlinux', 'generated', 'sphinx_x', '.gitignore', 'patches-1', 'xyz']) {
      expect(names.mayMatch(name), name).toBe(true);
    }
    for (const name of ['main.c', 'Makefile', 'Kconfig', 'a.h', 'module.symvers', 'include', 'yz', 'a.c']) {
      expect(names.mayMatch(name), name).toBe(false);
    }
  });

  it('a comment-only file can match nothing', () => {
    expect(namePrefilter('# nothing here\n\n').mayMatch('anything')).toBe(false);
  });

  it('keeps every name when a pattern can match any name, or is not read with certainty', () => {
    for (const text of ['*\n*.o', 'build/**', '**', '*.o \n', ' a\n', '[]a]x', 'a[', '*.[o\\]]', 'x\\', '?', 'a/\n/']) {
      expect(namePrefilter(text).mayMatch('main.c'), JSON.stringify(text)).toBe(true);
    }
  });

  it('never rules out a name the `ignore` matcher matches by the same patterns, at any depth', () => {
    const texts = [
      KERNEL_LIKE,
      'build/\n!build/keep\n',
      '/a/b/c.txt\nsrc/**/gen-*.ts\n',
      '*.[oa]\nlib*.so.*\n',
      'foo\\ bar\n\\!important\n',
      'a?c\n[!x]yz\n[0-9]*.log\n',
    ];
    const names = ['a.o', 'a.a', 'main.c', 'build', 'keep', 'c.txt', 'gen-x.ts', 'x.ts', 'libfoo.so.1', 'libfoo.so',
      'foo bar', '!important', 'important', 'abc', 'axc', 'ayz', 'xyz', '1.log', 'a.log', '.hidden', 'x.asn1.h',
      'x.c.1y.z', '#x#', 'vmlinux', 'generated', 'sphinx_', 'Module.symvers', 'x~'];
    for (const text of texts) {
      const matcher = newMatcher().add(text);
      const names_ = namePrefilter(text);
      for (const name of names) {
        if (names_.mayMatch(name)) continue;
        for (const dir of ['', 'a/', 'a/b/', 'src/x/', 'arch/x86/include/']) {
          for (const probe of [dir + name, dir + name + '/']) {
            const result = matcher.test(probe);
            // Ruled out: no pattern matches the name itself, so the matcher can only answer through a folder above.
            if (result.ignored || result.unignored) {
              expect(matcher.test(dir).ignored || matcher.test(dir).unignored, `${JSON.stringify(text)} ${probe}`).toBe(true);
            }
          }
        }
      }
    }
  });
});

describe('a folder matcher with the prefilter', () => {
  it('answers a name no pattern can match without running the `ignore` matcher, and still ignores the rest', async () => {
    const fs = new MemoryFileSystem({ '/ws/.gitignore': '*.o\n/build/\n', '/ws/src/a.c': 'a' });
    const matcher = await createIgnoreRules(fs, '/ws').folder('src');
    const test = vi.spyOn(Object.getPrototypeOf(newMatcher()) as { test(path: string): unknown }, 'test');
    expect(matcher.ignores('a.c', false)).toBe(false);
    expect(matcher.ignores('b.h', false)).toBe(false);
    expect(matcher.ignores('lib', true)).toBe(false);
    expect(test).not.toHaveBeenCalled();
    expect(matcher.ignores('a.o', false)).toBe(true);
    expect(test).toHaveBeenCalled();
  });

  it('a folder whose names no pattern can match is not tested against the layer either', async () => {
    const fs = new MemoryFileSystem({ '/ws/.gitignore': '*.o\n/build/\n', '/ws/src/lib/a.c': 'a' });
    const rules = createIgnoreRules(fs, '/ws');
    const test = vi.spyOn(Object.getPrototypeOf(newMatcher()) as { test(path: string): unknown }, 'test');
    const matcher = await rules.folder('src/lib');
    expect(matcher.ignores('a.c', false)).toBe(false);
    expect(test).not.toHaveBeenCalled();
    expect(await rules.isIgnored('build/src/lib/a.c', false)).toBe(true);
  });

  it('a folder a layer ignores still asks that layer (a deeper .gitignore re-included it)', async () => {
    const fs = new MemoryFileSystem({
      '/ws/.gitignore': 'build/\n',
      '/ws/src/.gitignore': '!build/\n',
      '/ws/src/build/a.c': 'a',
    });
    const rules = createIgnoreRules(fs, '/ws');
    expect(await rules.isIgnored('src/build', true)).toBe(false);
    expect(await rules.isIgnored('src/build/a.c', false)).toBe(false);
    expect(await rules.isIgnored('build/a.c', false)).toBe(true);
  });
});
