import { describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { MAX_LINE_TEXT, searchInFiles, type SearchInFilesOptions } from '../../../core/content-search/search-in-files.ts';
import { WorkspaceError } from '../../../core/errors/workspace-error.ts';
import { BACKENDS, treesFor, type Seed } from '../../support/backends.ts';
import { instrumented } from '../tree-ops/faulty-file-system.ts';

/** [line, text, start, end] per match (the file is always the one searched). */
type Hit = [number, string, number, number];

describe.each(BACKENDS)('searchInFiles (%s)', (backend) => {
  const build = treesFor(backend);

  /** Searches one file holding `content` and returns its hits. */
  async function hits(content: string | Uint8Array, options: SearchInFilesOptions): Promise<Hit[]> {
    const t = await build({ 'f.txt': content });
    const matches = await searchInFiles(t.fs, t.root, options);
    for (const match of matches) expect(match.file).toBe(`${t.root}/f.txt`);
    return matches.map((m) => [m.lineNumber, m.lineText, m.matchStart, m.matchEnd]);
  }

  it('reports every match, several per line, 1-based lines, without the \\r of CRLF', async () => {
    expect(await hits('aaaa\r\nxa\nlast a', { query: 'aa' })).toEqual([
      [1, 'aaaa', 0, 2],
      [1, 'aaaa', 2, 4],
    ]);
    expect(await hits('one\r\ntwo a\r\n\r\nthree a\n', { query: 'a$', regex: true })).toEqual([
      [2, 'two a', 4, 5],
      [4, 'three a', 6, 7],
    ]);
  });

  it('counts offsets in UTF-16 code units, keeps a byte order mark in line 1, and folds case beyond ASCII', async () => {
    expect(await hits('﻿🌍 ÉCOLE école', { query: 'école' })).toEqual([
      [1, '﻿🌍 ÉCOLE école', 4, 9],
      [1, '﻿🌍 ÉCOLE école', 10, 15],
    ]);
    expect(await hits('ÉCOLE école', { query: 'école', caseSensitive: true })).toEqual([[1, 'ÉCOLE école', 6, 11]]);
  });

  it('whole words in any script: no letter, digit, mark or _ on either side', async () => {
    const text = 'café cafés _café 1café (café) при привет при';
    expect(await hits(text, { query: 'café', wholeWord: true })).toEqual([
      [1, text, 0, 4],
      [1, text, 24, 28],
    ]);
    expect(await hits(text, { query: 'при', wholeWord: true })).toEqual([
      [1, text, 30, 33],
      [1, text, 41, 44],
    ]);
    expect(await hits('foo.bar foo_bar', { query: 'fo+', regex: true, wholeWord: true })).toEqual([[1, 'foo.bar foo_bar', 0, 3]]);
  });

  it('matches a plain query literally and skips empty regex matches', async () => {
    expect(await hits('a.c abc a.c', { query: 'a.c' })).toEqual([
      [1, 'a.c abc a.c', 0, 3],
      [1, 'a.c abc a.c', 8, 11],
    ]);
    expect(await hits('abbc 🌍x', { query: 'b*', regex: true })).toEqual([[1, 'abbc 🌍x', 1, 3]]);
    expect(await hits('x\n\ny', { query: '^', regex: true })).toEqual([]);
  });

  it('cuts a long line to a window holding the match, never splitting a surrogate pair', async () => {
    const line = '🌍'.repeat(3000) + 'needle' + 'z'.repeat(5000);
    const [hit] = await hits(line, { query: 'needle' });
    const [lineNumber, lineText, start, end] = hit!;
    expect([lineNumber, start, end, lineText.length]).toEqual([1, 200, 206, MAX_LINE_TEXT]);
    expect(lineText).toBe(line.slice(6000 - 200, 6000 - 200 + MAX_LINE_TEXT));
    expect(lineText.slice(start, end)).toBe('needle');
    // A window that would start or end between the two halves of a pair moves to keep the pair whole.
    const late = '🌍'.repeat(3000) + 'y' + 'needle';
    const [[, lateText, lateStart]] = (await hits(late, { query: 'needle' })) as [Hit];
    expect([lateText.codePointAt(0), lateStart, lateText.length]).toEqual([0x1f30d, 201, 6007 - 5800]);
    const early = 'needle!' + '🌍'.repeat(3000);
    const [[, earlyText, earlyStart]] = (await hits(early, { query: 'needle' })) as [Hit];
    expect([earlyStart, earlyText.length, earlyText.codePointAt(earlyText.length - 2)]).toEqual([0, MAX_LINE_TEXT - 1, 0x1f30d]);
  });

  it('searches non-UTF-8 text leniently, but skips files holding NUL and files over the size cap', async () => {
    expect(await hits(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6c, 0x61, 0x69, 0x74]), { query: 'lait' })).toEqual([
      [1, 'caf\ufffd lait', 5, 9],
    ]);
    expect(await hits('lait\0', { query: 'lait' })).toEqual([]);
    expect(await hits('lait 1234', { query: 'lait', maxFileBytes: 8 })).toEqual([]);
    expect(await hits('lait 123', { query: 'lait', maxFileBytes: 8 })).toEqual([[1, 'lait 123', 0, 4]]);
  });

  it('answers [] for a blank query and refuses a pattern that does not compile', async () => {
    expect(await hits('anything', { query: ' \n ' })).toEqual([]);
    const t = await build({});
    // RE2's reasons (regex queries run on RE2), whatever the flags; JavaScript-only syntax is refused.
    for (const [query, reason, options] of [
      ['[a-', 'missing closing ]: `[a-`', {}],
      ['*', 'missing argument to repetition operator: `*`', { caseSensitive: true }],
      ['\\p{Nope}', 'invalid character class range: `\\p{Nope}`', { wholeWord: true }],
      ['a(?=x)', 'invalid or unsupported Perl syntax: `(?=`', {}],
      ['(?<!x)a', 'invalid named capture: `(?<!x)a`', {}],
      ['(a)\\1', 'invalid escape sequence: `\\1`', { wholeWord: true, caseSensitive: true }],
    ] as const) {
      const error = await searchInFiles(t.fs, t.root, { query, regex: true, ...options }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkspaceError);
      expect((error as Error).message).toBe(`Invalid search: ${reason}`);
    }
  });

  it('runs regex queries in linear time: a pattern that backtracks for hours answers at once, and right', async () => {
    // A backtracking engine tries 2^40 ways to split the `a`s before giving up on line 1; RE2 never
    // backtracks. That this test finishes at all is the proof.
    const text = 'a'.repeat(40) + '!\n' + 'a'.repeat(40);
    expect(await hits(text, { query: '^(a+)+$', regex: true })).toEqual([[2, 'a'.repeat(40), 0, 40]]);
    expect(await hits(text, { query: '(a|aa)+$', regex: true, wholeWord: true })).toEqual([[2, 'a'.repeat(40), 0, 40]]);
  });

  it('counts regex offsets in UTF-16 code units, a surrogate pair being one character, and folds case', async () => {
    const line = '🌍 é 𝒳x CAFÉ café';
    expect(await hits(line, { query: 'caf.', regex: true })).toEqual([
      [1, line, 9, 13],
      [1, line, 14, 18],
    ]);
    expect(await hits(line, { query: 'caf.', regex: true, caseSensitive: true })).toEqual([[1, line, 14, 18]]);
    expect(await hits(line, { query: '.x', regex: true })).toEqual([[1, line, 5, 8]]);
    expect(await hits(line, { query: '[^ ]+$', regex: true })).toEqual([[1, line, 14, 18]]);
    // Every line on its own: `^` and `$` are its ends, and the `\r` of CRLF is not in it.
    expect(await hits('x 🌍\r\n🌍 x', { query: '^🌍|🌍$', regex: true })).toEqual([
      [1, 'x 🌍', 2, 4],
      [2, '🌍 x', 0, 2],
    ]);
    // Also where the whole file's ends differ from a line's (the shortcut of testing the whole file first).
    expect(await hits('x\nab\nb', { query: '\\Aab\\z|(?-m:^b$)', regex: true })).toEqual([
      [2, 'ab', 0, 2],
      [3, 'b', 0, 1],
    ]);
    expect(await hits('x\r\nab\r\n', { query: 'b$', regex: true, wholeWord: true })).toEqual([]);
    expect(await hits('x\r\na b\r\n', { query: 'b$', regex: true, wholeWord: true })).toEqual([[2, 'a b', 2, 3]]);
  });

  it('regex whole words: a rejected start does not hide a later match, nor another way to match at the same start', async () => {
    expect(await hits('abc bcd', { query: 'b\\w*', regex: true, wholeWord: true })).toEqual([[1, 'abc bcd', 4, 7]]);
    // `a` alone is followed by `b`, a word character; `ab` is the match, as a backtracking engine finds it.
    expect(await hits('ab c', { query: 'a|ab', regex: true, wholeWord: true })).toEqual([[1, 'ab c', 0, 2]]);
    // Word characters in any script, astral ones included; `_` and digits are word characters.
    const line = '𝒳café café_ 1café (café) при';
    expect(await hits(line, { query: 'caf.', regex: true, wholeWord: true })).toEqual([[1, line, 20, 24]]);
    expect(await hits(line, { query: '\\p{Cyrillic}+', regex: true, wholeWord: true })).toEqual([[1, line, 26, 29]]);
    // Matches of non-word characters side by side: the one ending a match is the one before the next.
    expect(await hits('.. x. .', { query: '\\.', regex: true, wholeWord: true })).toEqual([
      [1, '.. x. .', 0, 1],
      [1, '.. x. .', 1, 2],
      [1, '.. x. .', 6, 7],
    ]);
    expect(await hits('🌍🌍 a', { query: '🌍', regex: true, wholeWord: true })).toEqual([
      [1, '🌍🌍 a', 0, 2],
      [1, '🌍🌍 a', 2, 4],
    ]);
  });

  it('stops at maxMatches without opening further folders', async () => {
    const seed: Seed = { 'sub/later.txt': 'hit' };
    for (let i = 0; i < 5; i++) seed[`f${i}.txt`] = 'hit\nhit';
    const t = await build(seed);
    const spy = instrumented(t.fs);
    const matches = await searchInFiles(spy.fs, t.root, { query: 'hit', maxMatches: 3 });
    expect(matches.map((m) => [m.file.slice(t.root.length + 1), m.lineNumber])).toEqual([
      ['f0.txt', 1],
      ['f0.txt', 2],
      ['f1.txt', 1],
    ]);
    expect(spy.calls.readdir).toBe(1);
  });

  it('fails once the time budget is spent, checked between files and lines', async () => {
    const seed: Seed = {};
    for (let i = 0; i < 20; i++) seed[`f${String(i).padStart(2, '0')}.txt`] = 'hit';
    const t = await build(seed);
    const error = await searchInFiles(slowReads(t.fs, 40), t.root, { query: 'hit', timeBudgetMs: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceError);
    expect((error as WorkspaceError).message).toMatch(
      /^Search timed out after 0\.1 s \((\d|1\d) matches so far\): search a smaller folder or a simpler pattern$/,
    );
  });
});

describe('searchInFiles over MemoryFileSystem: a single file, and a missing root', () => {
  it('searches one file when the root is a file, and throws the root’s own not-found', async () => {
    const fs = new MemoryFileSystem({ '/w/a.txt': 'x hit', '/w/b.txt': 'hit' });
    expect(await searchInFiles(fs, '/w/a.txt', { query: 'hit' })).toEqual([
      { file: '/w/a.txt', lineNumber: 1, lineText: 'x hit', matchStart: 2, matchEnd: 5 },
    ]);
    await expect(searchInFiles(fs, '/w/missing', { query: 'hit' })).rejects.toMatchObject({ code: 'not-found' });
  });
});

/** `fs` with every read delayed by `ms`: a slow disk, for the time budget. */
function slowReads(fs: FileSystem, ms: number): FileSystem {
  return new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== 'read' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return value.apply(target, args);
      };
    },
  });
}
