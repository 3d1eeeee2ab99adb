/**
 * `mode=find` (docs/intentic-search.md: modes, answer, what is searched), through Intentic's client,
 * on both backends and in both engine states: every answer is checked to be the same from the full scan (index
 * still building) and from the index (settled), then pinned whole.
 *
 * Each file holds its own made-up words (zork, plugh, frotz…), so a query's whole answer is known by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Group, SearchAnswer } from '../../../core/search/answer.ts';
import { BACKENDS } from '../../support/backends.ts';
import { FRESH, searchPair, spansOf, textHit, type SearchPair } from './search-fixture.ts';

const MiB = 1024 * 1024;
/** `head` + padding to exactly `bytes` bytes (ASCII). */
const sized = (head: string, bytes: number) => head + 'x'.repeat(bytes - head.length);

const LONG_1 = 'x'.repeat(300) + 'WINDOWED' + 'y'.repeat(300);
const LONG_2 = 'p'.repeat(100) + 'WINDOWED' + 'q'.repeat(50) + 'WINDOWED' + 'r'.repeat(89) + 'WINDOWED' + 's'.repeat(100);
const LONG_3 = 'WINDOWED' + 'z'.repeat(250);
const EXACTLY_200 = 'k'.repeat(192) + 'WINDOWED';
const JUST_OVER_200 = 'k'.repeat(193) + 'WINDOWED';

const SEED = {
  'regex.txt': 'zork\nzooork\nzrk\nzoork zork\n',
  'literal.txt': 'a.c abc\nabc\n',
  'case.txt': 'Quux\nquux\nQUUX\n',
  'word.txt': 'plugh plughs xplugh plugh_x\nüber xüber überall\néwidget widget widgeté\n',
  'utf16.txt': '😀é zyzzyva 😀 zyzzyva\n',
  'long.txt': [LONG_1, LONG_2, LONG_3, EXACTLY_200, JUST_OVER_200].join('\n') + '\n',
  'crlf.txt': 'first\r\nsecond frotz\r\nfrotz third\r\n',
  'big/exact.txt': sized('xyzzy-big\n', MiB),
  'big/over.txt': sized('xyzzy-big\n', MiB + 1),
  'bin/nul.dat': 'xyzzy-nul\n\0\n',
  'bin/clean.dat': 'xyzzy-nul\n',
  '.git/HEAD': 'ref: xyzzy-git\n',
  '.git/config': '[core] xyzzy-git\n',
  '.gitignore': 'gen/\n*.log\n!keep.log\n',
  'src/.gitignore': 'local.txt\n',
  'src/local.txt': 'xyzzy-ign src-local\n',
  'src/kept.txt': 'xyzzy-ign src-kept\n',
  'node_modules/pkg/index.js': 'xyzzy-ign nm\n',
  'packages/a/node_modules/b.js': 'xyzzy-ign nested-nm\n',
  'dist/out.js': 'xyzzy-ign dist\n',
  'lib/.cache/c.txt': 'xyzzy-ign cache\n',
  'py/__pycache__/m.pyc.txt': 'xyzzy-ign pycache\n',
  'gen/out.txt': 'xyzzy-ign gen\n',
  'logs/a.log': 'xyzzy-ign log\n',
  'logs/keep.log': 'xyzzy-ign keep\n',
  '.env': 'xyzzy-ign env\n',
  'links/to-regex.txt': { link: '../regex.txt' },
  'links/out.txt': { link: '$OUTSIDE/secret.txt' },
  'links/folder': { link: '../big' },
  'uncompiled.txt': 'call frob( here\n',
  'escapes.txt': 'gnusto here\nrezrov there\n',
  'docs/guide.md': '# Lanterns\n\nThe brass lantern glows brightly whenever the dungeon is dark.\n',
  'patho.txt': 'a'.repeat(100_000) + 'b\n',
  'capped.txt': Array.from({ length: 60 }, (_, i) => `frobozz ${i + 1}`).join('\n') + '\n',
  'frobozz-one.txt': 'one frobozz\n',
};

/** A whole `find` answer from hand-written groups (total/files/shown are theirs: one page, nothing capped). */
function findAnswer(groups: Group[], extra: Partial<SearchAnswer> = {}): SearchAnswer {
  const hits = groups.reduce((sum, group) => sum + group.hits.length, 0);
  return { mode: 'find', total: hits, files: groups.length, shown: hits, groups, freshness: FRESH, truncated: false, ...extra };
}

const NO_LINE_HINT = 'no line matches; check include, try includeIgnored=true for installed packages and build output, or mode=q';
const noHits = (extra: Partial<SearchAnswer> = {}) => findAnswer([], { hint: NO_LINE_HINT, ...extra });

describe.each(BACKENDS)('GET /workspace/search mode=find (%s)', (backend) => {
  let pair: SearchPair;
  beforeAll(async () => {
    pair = await searchPair(backend, SEED);
  });
  afterAll(() => pair.cleanup());

  it('is a regex by default, one hit per matching line, every match a span', async () => {
    expect(await pair.both({ query: 'zo+rk', mode: 'find' })).toEqual(
      findAnswer([
        {
          path: 'regex.txt',
          score: 1,
          hits: [textHit(1, 'zork', 'zork'), textHit(2, 'zooork', 'zooork'), textHit(4, 'zoork zork', 'zoork', 'zork')],
        },
      ]),
    );
  });

  it('literal=true matches the text as written', async () => {
    expect(await pair.both({ query: 'a.c', mode: 'find', literal: 'true' })).toEqual(
      findAnswer([{ path: 'literal.txt', score: 1, hits: [textHit(1, 'a.c abc', 'a.c')] }]),
    );
    // As a regex the dot is any character.
    expect(await pair.both({ query: 'a.c', mode: 'find', include: 'literal.txt' })).toEqual(
      findAnswer([{ path: 'literal.txt', score: 1, hits: [textHit(1, 'a.c abc', 'a.c', 'abc'), textHit(2, 'abc', 'abc')] }]),
    );
  });

  it('is case-insensitive unless caseSensitive', async () => {
    expect(await pair.both({ query: 'Quux', mode: 'find' })).toEqual(
      findAnswer([{ path: 'case.txt', score: 1, hits: [textHit(1, 'Quux', 'Quux'), textHit(2, 'quux', 'quux'), textHit(3, 'QUUX', 'QUUX')] }]),
    );
    expect(await pair.both({ query: 'Quux', mode: 'find', caseSensitive: 'true' })).toEqual(
      findAnswer([{ path: 'case.txt', score: 1, hits: [textHit(1, 'Quux', 'Quux')] }]),
    );
    expect(await pair.both({ query: 'qUUX', mode: 'find', caseSensitive: 'true' })).toEqual(noHits({ hint: NO_LINE_HINT.replace('no line matches; ', 'no line matches; drop caseSensitive, ') }));
  });

  it('word=true wants no word character on either side, in any script', async () => {
    expect(await pair.both({ query: 'plugh', mode: 'find', word: 'true' })).toEqual(
      findAnswer([{ path: 'word.txt', score: 1, hits: [textHit(1, 'plugh plughs xplugh plugh_x', 'plugh')] }]),
    );
    expect(await pair.both({ query: 'über', mode: 'find', word: 'true' })).toEqual(
      findAnswer([{ path: 'word.txt', score: 1, hits: [textHit(2, 'über xüber überall', 'über')] }]),
    );
    const line3 = 'éwidget widget widgeté';
    expect(await pair.both({ query: 'widget', mode: 'find', word: 'true' })).toEqual(
      findAnswer([{ path: 'word.txt', score: 1, hits: [{ line: 3, text: line3, spans: [{ start: 8, end: 14 }], tags: [{ kind: 'text' }] }] }]),
    );
    expect(await pair.both({ query: 'widget', mode: 'find' })).toEqual(
      findAnswer([{ path: 'word.txt', score: 1, hits: [textHit(3, line3, 'widget', 'widget', 'widget')] }]),
    );
  });

  it('spans are UTF-16 offsets: an emoji before the match counts 2, an é 1', async () => {
    const answer = await pair.both({ query: 'zyzzyva', mode: 'find' });
    const text = '😀é zyzzyva 😀 zyzzyva';
    expect(answer).toEqual(
      findAnswer([{ path: 'utf16.txt', score: 1, hits: [{ line: 1, text, spans: [{ start: 4, end: 11 }, { start: 15, end: 22 }], tags: [{ kind: 'text' }] }] }]),
    );
    for (const span of answer.groups[0]!.hits[0]!.spans) expect(text.slice(span.start, span.end)).toBe('zyzzyva');
    // A match that is itself astral: two units wide.
    expect((await pair.both({ query: '😀', mode: 'find', include: 'utf16.txt' })).groups[0]!.hits[0]!.spans).toEqual([
      { start: 0, end: 2 },
      { start: 12, end: 14 },
    ]);
  });

  it('a line over 200 characters shows the 200-character window from 40 before the first match', async () => {
    expect(await pair.both({ query: 'WINDOWED', mode: 'find', caseSensitive: 'true' })).toEqual(
      findAnswer([
        {
          path: 'long.txt',
          score: 1,
          hits: [
            // The match at 300: the window is [260, 460).
            { line: 1, text: 'x'.repeat(40) + 'WINDOWED' + 'y'.repeat(152), spans: [{ start: 40, end: 48 }], tags: [{ kind: 'text' }] },
            // Matches at 100, 158 and 255: the window [60, 260) holds the first two, cuts the third (dropped).
            {
              line: 2,
              text: 'p'.repeat(40) + 'WINDOWED' + 'q'.repeat(50) + 'WINDOWED' + 'r'.repeat(89) + 'WINDO',
              spans: [{ start: 40, end: 48 }, { start: 98, end: 106 }],
              tags: [{ kind: 'text' }],
            },
            // A match at 0: the window cannot start before the line.
            { line: 3, text: 'WINDOWED' + 'z'.repeat(192), spans: [{ start: 0, end: 8 }], tags: [{ kind: 'text' }] },
            // 200 characters exactly: the whole line.
            { line: 4, text: EXACTLY_200, spans: [{ start: 192, end: 200 }], tags: [{ kind: 'text' }] },
            // 201: the window starts 40 before the match at 193 and the line ends inside it.
            { line: 5, text: 'k'.repeat(40) + 'WINDOWED', spans: [{ start: 40, end: 48 }], tags: [{ kind: 'text' }] },
          ],
        },
      ]),
    );
  });

  it('reads CRLF files as lines without the \\r ($ anchors before it)', async () => {
    expect(await pair.both({ query: 'frotz', mode: 'find' })).toEqual(
      findAnswer([{ path: 'crlf.txt', score: 1, hits: [textHit(2, 'second frotz', 'frotz'), textHit(3, 'frotz third', 'frotz')] }]),
    );
    expect(await pair.both({ query: 'frotz$', mode: 'find' })).toEqual(
      findAnswer([{ path: 'crlf.txt', score: 1, hits: [textHit(2, 'second frotz', 'frotz')] }]),
    );
  });

  it('skips a file over 1 MiB for text (exactly 1 MiB is searched) but files still lists it', async () => {
    expect(await pair.both({ query: 'xyzzy-big', mode: 'find' })).toEqual(
      findAnswer([{ path: 'big/exact.txt', score: 1, hits: [textHit(1, 'xyzzy-big', 'xyzzy-big')] }]),
    );
    const listed = await pair.both({ query: 'big/over', mode: 'files' });
    expect(listed.groups.map((group) => group.path)).toEqual(['big/over.txt']);
  });

  it('skips a file holding a NUL byte for text; files still lists it', async () => {
    expect(await pair.both({ query: 'xyzzy-nul', mode: 'find' })).toEqual(
      findAnswer([{ path: 'bin/clean.dat', score: 1, hits: [textHit(1, 'xyzzy-nul', 'xyzzy-nul')] }]),
    );
    expect((await pair.both({ query: 'bin/nul.dat', mode: 'files' })).groups.map((group) => group.path)).toEqual(['bin/nul.dat']);
  });

  it('never searches or lists .git, even with includeIgnored', async () => {
    for (const includeIgnored of ['false', 'true']) {
      expect(await pair.both({ query: 'xyzzy-git', mode: 'find', includeIgnored })).toEqual(noHits({ hint: expect.any(String) }));
      // `git` fuzzily: only the two .gitignore files, nothing under .git/ (substring scores 1.45 and 1.31).
      expect((await pair.both({ query: 'git', mode: 'files', includeIgnored })).groups.map((g) => g.path)).toEqual(['.gitignore', 'src/.gitignore']);
      expect((await pair.both({ query: 'HEAD', mode: 'files', includeIgnored })).groups.map((g) => g.path)).toEqual([]);
    }
  });

  it('skips ignored folders at any depth and .gitignore matches (per folder, ! re-including) unless includeIgnored', async () => {
    const hit = (path: string, word: string) => ({ path, score: 0, hits: [textHit(1, `xyzzy-ign ${word}`, 'xyzzy-ign')] });
    const ranked = (groups: ReturnType<typeof hit>[]) => groups.map((group, rank) => ({ ...group, score: 1 / (rank + 1) }));
    // `.env` is an ordinary file; logs/keep.log is re-included by `!keep.log`; src/kept.txt is not matched by src/.gitignore.
    expect(await pair.both({ query: 'xyzzy-ign', mode: 'find' })).toEqual(
      findAnswer(ranked([hit('.env', 'env'), hit('logs/keep.log', 'keep'), hit('src/kept.txt', 'src-kept')])),
    );
    expect(await pair.both({ query: 'xyzzy-ign', mode: 'find', includeIgnored: 'true' })).toEqual(
      findAnswer(
        ranked([
          hit('.env', 'env'),
          hit('dist/out.js', 'dist'),
          hit('gen/out.txt', 'gen'),
          hit('lib/.cache/c.txt', 'cache'),
          hit('logs/a.log', 'log'),
          hit('logs/keep.log', 'keep'),
          hit('node_modules/pkg/index.js', 'nm'),
          hit('packages/a/node_modules/b.js', 'nested-nm'),
          hit('py/__pycache__/m.pyc.txt', 'pycache'),
          hit('src/kept.txt', 'src-kept'),
          hit('src/local.txt', 'src-local'),
        ]),
      ),
    );
    // The same rule for paths.
    expect((await pair.both({ query: 'index.js', mode: 'files' })).groups.map((g) => g.path)).toEqual([]);
    expect((await pair.both({ query: 'index.js', mode: 'files', includeIgnored: 'true' })).groups.map((g) => g.path)).toEqual([
      'node_modules/pkg/index.js',
    ]);
  });

  it('skips symbolic links (to files, to folders, out of the workspace)', async () => {
    expect(await pair.both({ query: 'zork', mode: 'find', literal: 'true' })).toEqual(
      findAnswer([{ path: 'regex.txt', score: 1, hits: [textHit(1, 'zork', 'zork'), textHit(4, 'zoork zork', 'zork')] }]),
    );
    expect(await pair.both({ query: 'secret', mode: 'find', includeIgnored: 'true' })).toEqual(noHits());
    expect((await pair.both({ query: 'links/', mode: 'files', includeIgnored: 'true' })).groups.map((g) => g.path)).toEqual([]);
  });

  it('runs a regex that does not compile as literal text, with its note', async () => {
    expect(await pair.both({ query: 'frob(', mode: 'find' })).toEqual(
      findAnswer([{ path: 'uncompiled.txt', score: 1, hits: [textHit(1, 'call frob( here', 'frob(')] }], { note: 'ran as literal text' }),
    );
    // Look-behind is not in the dialect (Rust `regex`): literal too, and that text is nowhere.
    expect(await pair.both({ query: '(?<=call )frob', mode: 'find' })).toEqual(noHits({ note: 'ran as literal text' }));
    // A back-reference neither.
    expect(await pair.both({ query: '(fr)\\1ob', mode: 'find' })).toEqual(noHits({ note: 'ran as literal text' }));
  });

  it('reruns grep-style escapes without their backslash after zero hits', async () => {
    expect(await pair.both({ query: 'gnusto\\|rezrov', mode: 'find' })).toEqual(
      findAnswer([{ path: 'escapes.txt', score: 1, hits: [textHit(1, 'gnusto here', 'gnusto'), textHit(2, 'rezrov there', 'rezrov')] }], {
        note: 'escapes rewritten',
      }),
    );
    expect(await pair.both({ query: '\\(gnusto\\) here', mode: 'find' })).toEqual(
      findAnswer([{ path: 'escapes.txt', score: 1, hits: [textHit(1, 'gnusto here', 'gnusto here')] }], { note: 'escapes rewritten' }),
    );
    // Never with literal: the text is looked for as written.
    expect(await pair.both({ query: 'gnusto\\|rezrov', mode: 'find', literal: 'true' })).toEqual(noHits());
  });

  it('answers a phrase with no text match semantically (prose), keeping mode find', async () => {
    // The prose index is fed in the background: only the settled workspace is sure to have read the guide.
    const answer = await pair.fresh.search({ query: 'lantern dungeon glows', mode: 'find' });
    expect(answer).toEqual({
      mode: 'find',
      total: 1,
      files: 1,
      shown: 1,
      groups: [
        {
          path: 'docs/guide.md',
          score: 1,
          hits: [
            {
              line: 3,
              text: 'The brass lantern glows brightly whenever the dungeon is dark.',
              spans: [],
              tags: [{ kind: 'bm25', score: expect.any(Number) }],
            },
          ],
        },
      ],
      freshness: FRESH,
      truncated: false,
      note: 'answered semantically',
      features: ['sem: no embeddings endpoint configured'],
    });
    // Not a phrase (a pattern character), or literal: no fallback.
    expect(await pair.fresh.search({ query: 'lantern dungeon glows+', mode: 'find' })).toEqual(noHits());
    expect(await pair.fresh.search({ query: 'lantern dungeon glows', mode: 'find', literal: 'true' })).toEqual(noHits());
    // Trailing ?!. do not stop a phrase.
    expect((await pair.fresh.search({ query: 'lantern dungeon glows?!', mode: 'find' })).note).toBe('answered semantically');
  });

  it('answers (a+)+$ against a 100 000-character line of a promptly (linear-time dialect, no hang)', async () => {
    expect(await pair.both({ query: '(a+)+$', mode: 'find', include: 'patho.txt' })).toEqual(noHits());
    expect(await pair.both({ query: '(a+)+b$', mode: 'find', include: 'patho.txt' })).toEqual(
      findAnswer([{ path: 'patho.txt', score: 1, hits: [{ line: 1, text: 'a'.repeat(200), spans: [], tags: [{ kind: 'text' }] }] }]),
    );
  });

  it('keeps the first 50 matching lines of a file (capped), partial, total the kept lines', async () => {
    const capped = Array.from({ length: 50 }, (_, i) => textHit(i + 1, `frobozz ${i + 1}`, 'frobozz'));
    expect(await pair.both({ query: 'frobozz', mode: 'find' })).toEqual({
      mode: 'find',
      total: 51,
      files: 2,
      shown: 51,
      groups: [
        { path: 'capped.txt', score: 1, hits: capped, capped: true },
        { path: 'frobozz-one.txt', score: 0.5, hits: [textHit(1, 'one frobozz', 'frobozz')] },
      ],
      freshness: FRESH,
      truncated: false,
      partial: true,
    });
    // Fifty lines exactly are not capped.
    const fifty = await pair.both({ query: 'frobozz ([1-4]?[0-9]|50)$', mode: 'find', include: 'capped.txt' });
    expect(fifty.groups[0]!.hits.map((hit) => hit.line)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(fifty.groups[0]!.capped).toBeUndefined();
    expect(fifty.partial).toBeUndefined();
  });

  it('orders files by matching lines, ties by path, score 1/(rank+1)', async () => {
    const answer = await pair.both({ query: 'xyzzy-|frobozz|zork', mode: 'find' });
    expect(answer.groups.map((group) => [group.path, group.hits.length, group.score])).toEqual([
      ['capped.txt', 50, 1],
      ['regex.txt', 2, 1 / 2],
      ['.env', 1, 1 / 3],
      ['big/exact.txt', 1, 1 / 4],
      ['bin/clean.dat', 1, 1 / 5],
      ['frobozz-one.txt', 1, 1 / 6],
      ['logs/keep.log', 1, 1 / 7],
      ['src/kept.txt', 1, 1 / 8],
    ]);
  });

  it('spansOf (the helper) finds successive occurrences', () => {
    expect(spansOf('ab ab', ['ab', 'ab'])).toEqual([
      { start: 0, end: 2 },
      { start: 3, end: 5 },
    ]);
  });
});
