import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, makeFifo, type Seed } from '../../support/backends.ts';
import { seededRandom } from '../../core/text/generators.ts';
import { failed, ok, rpcFiles, type RpcFiles } from './files-fixture.ts';

const seed: Seed = {
  'a.txt': 'Hello world\r\nhello again\nsay HELLO',
  'src/code.ts': 'const helloWorld = 1;\nhello(); // hello',
  'node_modules/dep/index.js': 'hello',
  'dist/bundle.js': 'hello',
  'big.txt': 'hello' + ' '.repeat(1_000_000 - 5) + '!', // 1 000 001 bytes: skipped
  'exact.txt': 'hello' + ' '.repeat(1_000_000 - 5), // exactly 1 000 000 bytes: searched
  'bin.dat': 'hello\0world',
  'to-a': { link: 'a.txt' },
  escape: { link: '$OUTSIDE' },
  'escape-file': { link: '$OUTSIDE/secret.txt' },
  '.agents/someone/notes.txt': 'hello',
};

describe.each(BACKENDS)('/ws search_in_files (%s)', (backend) => {
  let f: RpcFiles;
  afterEach(() => f.cleanup());
  const setup = async (extra: Seed = {}) => (f = await rpcFiles(backend, { ...seed, ...extra }));
  const match = (rel: string, lineNumber: number, lineText: string, matchStart: number, matchEnd: number) => ({
    file: f.at(rel),
    lineNumber,
    lineText,
    matchStart,
    matchEnd,
  });

  it('finds every match, case-insensitively by default, in walk order; skips the skip list, big and binary files', async () => {
    await setup();
    const aTxt = (rel: string) => [
      match(rel, 1, 'Hello world', 0, 5),
      match(rel, 2, 'hello again', 0, 5),
      match(rel, 3, 'say HELLO', 4, 9),
    ];
    expect(await f.reply('search_in_files', { path: f.root, query: 'hello' })).toEqual(
      ok([
        // The top folder's files in listing order, then src/ (breadth-first).
        ...aTxt('a.txt'),
        // A line longer than 4000 code units comes back as a 4000-unit window holding the match.
        match('exact.txt', 1, 'hello' + ' '.repeat(3995), 0, 5),
        ...aTxt('to-a'),
        match('src/code.ts', 1, 'const helloWorld = 1;', 6, 11),
        match('src/code.ts', 2, 'hello(); // hello', 0, 5),
        match('src/code.ts', 2, 'hello(); // hello', 12, 17),
      ]),
    );
  });

  it('honours caseSensitive, wholeWord and regex', async () => {
    await setup();
    expect(await f.reply('search_in_files', { path: 'src', query: 'Hello', caseSensitive: true })).toEqual(ok([]));
    expect(await f.reply('search_in_files', { path: '', query: 'Hello', caseSensitive: true })).toEqual(
      ok([match('a.txt', 1, 'Hello world', 0, 5), match('to-a', 1, 'Hello world', 0, 5)]),
    );
    expect(await f.reply('search_in_files', { path: 'src', query: 'hello', wholeWord: true })).toEqual(
      ok([match('src/code.ts', 2, 'hello(); // hello', 0, 5), match('src/code.ts', 2, 'hello(); // hello', 12, 17)]),
    );
    expect(await f.reply('search_in_files', { path: 'src', query: 'hello\\w+|\\(\\)', regex: true })).toEqual(
      ok([match('src/code.ts', 1, 'const helloWorld = 1;', 6, 16), match('src/code.ts', 2, 'hello(); // hello', 5, 7)]),
    );
    // Without `regex` the same text is literal.
    expect(await f.reply('search_in_files', { path: 'src', query: '();', regex: false })).toEqual(
      ok([match('src/code.ts', 2, 'hello(); // hello', 5, 8)]),
    );
  });

  it('answers a pattern that would backtrack for hours at once (regex queries run on RE2)', async () => {
    // The reviewer's freeze: `^(a+)+$` against `a`s and a `!`. With 40 `a`s a backtracking engine would take
    // hours; the reply arriving at all is the proof.
    await setup({ 'redos/a.txt': 'a'.repeat(40) + '!\n' + 'a'.repeat(40) });
    expect(await f.reply('search_in_files', { path: 'redos', query: '^(a+)+$', regex: true })).toEqual(
      ok([match('redos/a.txt', 2, 'a'.repeat(40), 0, 40)]),
    );
  });

  it('searches a literal of 70 000 characters (too long for one JavaScript regex) with its switches honoured', async () => {
    // Mixed case and regex syntax characters, so case folding and escaping are exercised over the whole length.
    const random = seededRandom(17);
    const alphabet = 'AbKsé.(|*?[\\^$ ';
    const long = Array.from({ length: 70_000 }, () => alphabet[Math.floor(random() * alphabet.length)]).join('') + 'tail';
    const nearMiss = long.slice(0, 35_000) + '#' + long.slice(35_001); // one character differs, in the middle
    await setup({ 'long/hit.txt': `before\nsay ${long} here\n${long.toLowerCase()}_glued\n`, 'long/near.txt': nearMiss });
    // A line over 4000 code units comes back as a window of 4000 holding the match's start.
    const window = (line: string, start: number) => ({ lineText: line.slice(0, 4000), matchStart: start, matchEnd: 4000 });
    const line2 = { file: f.at('long/hit.txt'), lineNumber: 2, ...window(`say ${long} here`, 4) };
    const line3 = { file: f.at('long/hit.txt'), lineNumber: 3, ...window(`${long.toLowerCase()}_glued`, 0) };
    expect(await f.reply('search_in_files', { path: 'long', query: long.toUpperCase() })).toEqual(ok([line2, line3]));
    expect(await f.reply('search_in_files', { path: 'long', query: long, caseSensitive: true })).toEqual(ok([line2]));
    expect(await f.reply('search_in_files', { path: 'long', query: long, wholeWord: true })).toEqual(ok([line2]));
  });

  it('answers `Invalid search: …` for a regex too large or too deep to compile, never an internal error', async () => {
    await setup();
    expect(await f.reply('search_in_files', { path: '', query: '('.repeat(20_000) + ')'.repeat(20_000), regex: true })).toEqual(
      failed('Invalid search: expression nests too deeply'),
    );
  });

  it('searches a single file when `path` names one', async () => {
    await setup();
    expect(await f.reply('search_in_files', { path: 'a.txt', query: 'again' })).toEqual(ok([match('a.txt', 2, 'hello again', 6, 11)]));
  });

  it('answers [] for a blank query and `Invalid search: …` for a pattern that does not compile', async () => {
    await setup();
    expect(await f.reply('search_in_files', { path: '', query: '' })).toEqual(ok([]));
    expect(await f.reply('search_in_files', { path: '', query: '  \t ' })).toEqual(ok([]));
    // The reasons are RE2's (regex queries run on RE2, as the original's Rust `regex` crate has its syntax).
    expect(await f.reply('search_in_files', { path: '', query: '(unclosed', regex: true })).toEqual(
      failed('Invalid search: missing closing ): `(unclosed`'),
    );
    expect(await f.reply('search_in_files', { path: '', query: 'a{2,1}', regex: true })).toEqual(
      failed('Invalid search: invalid repeat count: `{2,1}`'),
    );
    // JavaScript-only syntax RE2 has not: lookarounds, backreferences.
    expect(await f.reply('search_in_files', { path: '', query: 'a(?=x)', regex: true, wholeWord: true })).toEqual(
      failed('Invalid search: invalid or unsupported Perl syntax: `(?=`'),
    );
    expect(await f.reply('search_in_files', { path: '', query: '(a)\\1', regex: true })).toEqual(
      failed('Invalid search: invalid escape sequence: `\\1`'),
    );
    // A mistyped optional counts as absent: `regex: "yes"` is no regex, so "(" is literal.
    expect(await f.reply('search_in_files', { path: '', query: '(', regex: 'yes' })).toEqual(
      ok([match('src/code.ts', 2, 'hello(); // hello', 5, 6)]),
    );
  });

  it('stops at 500 matches', async () => {
    await setup({ 'many/lines.txt': Array.from({ length: 600 }, (_, i) => `needle ${i + 1}`).join('\n') });
    const reply = await f.reply('search_in_files', { path: 'many', query: 'needle' });
    expect(reply.ok).toBe(true);
    const results = reply.result as { lineNumber: number }[];
    expect(results).toHaveLength(500);
    expect(results.map((r) => r.lineNumber)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
  });

  it('never reads outside the workspace or the agents folder', async () => {
    await setup();
    expect(await f.reply('search_in_files', { path: '', query: 'secret' })).toEqual(ok([]));
    for (const path of ['..', f.outside, 'escape', 'escape-file', '/etc']) {
      expect(await f.reply('search_in_files', { path, query: 'secret' }), path).toEqual(failed('path is outside the workspace'));
    }
    expect(await f.reply('search_in_files', { path: '.agents', query: 'hello' })).toEqual(
      failed('not part of the workspace tree (the agents folder): .agents'),
    );
  });

  if (backend === 'node') {
    it('passes over a FIFO and a link to one without blocking on it', async () => {
      await setup({ 'fifo/a.txt': 'hello', 'fifo/to-pipe': { link: 'pipe' } });
      makeFifo(f.at('fifo/pipe'));
      expect(await f.reply('search_in_files', { path: 'fifo', query: 'hello' })).toEqual(ok([match('fifo/a.txt', 1, 'hello', 0, 5)]));
    });
  }

  it('answers the same from the search engine\'s content index once it is ready, and sees files written after it', async () => {
    // Every change reaches the feed here (the writes go through the API), so the index may rule files out.
    f = await rpcFiles(backend, { ...seed, 'src/deep/more.ts': 'let x = hello_there;' }, {}, { search: { changesAreSeen: true } });
    const queries = [
      { path: f.root, query: 'hello' },
      { path: f.root, query: 'HELLO', caseSensitive: true },
      { path: f.root, query: 'hel+o', regex: true },
      { path: f.root, query: 'hello', wholeWord: true },
      { path: 'src', query: 'there' },
    ];
    const before = [];
    for (const args of queries) before.push(await f.reply('search_in_files', args));
    f.server.search.start();
    await f.server.search.settled();
    for (const [i, args] of queries.entries()) expect(await f.reply('search_in_files', args), JSON.stringify(args)).toEqual(before[i]);
    // A file the index has not read yet (written after it was built) is read, not ruled out.
    await f.reply('write_file', { path: 'src/new.ts', content: 'say hello_there again' });
    expect(await f.reply('search_in_files', { path: 'src', query: 'there' })).toEqual(
      ok([match('src/new.ts', 1, 'say hello_there again', 10, 15), match('src/deep/more.ts', 1, 'let x = hello_there;', 14, 19)]),
    );
  });

  if (backend === 'node') {
    it('without a watcher a file changed on disk is still found: the index rules nothing out then', async () => {
      await setup({ 'src/disk.ts': 'nothing here' });
      f.server.search.start();
      await f.server.search.settled();
      writeFileSync(f.at('src/disk.ts'), 'now a needle_on_disk'); // behind the daemon's back (no watcher)
      expect(await f.reply('search_in_files', { path: 'src', query: 'needle_on_disk' })).toEqual(
        ok([match('src/disk.ts', 1, 'now a needle_on_disk', 6, 20)]),
      );
    });
  }

  it('fails for a missing path and checks its arguments', async () => {
    await setup();
    expect(await f.reply('search_in_files', { path: 'missing', query: 'x' })).toEqual(failed('Path does not exist'));
    expect(await f.reply('search_in_files', { path: '' })).toEqual(failed("invalid arg 'query': missing"));
    expect(await f.reply('search_in_files', { query: 'x' })).toEqual(failed("invalid arg 'path': missing"));
    expect(await f.reply('search_in_files', { path: '', query: 5 })).toEqual(failed("invalid arg 'query': expected string, got number"));
  });
});
