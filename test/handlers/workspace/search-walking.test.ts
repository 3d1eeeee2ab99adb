/**
 * A search asked while the file list's first walk is still running (a daemon just started on a big tree) does not
 * wait for that walk: it walks the disk itself and answers `freshness: building` — with the answer the list gives
 * once it is ready (the same files under the same ignore rules, the same order, the same cursor positions).
 *
 * The list's walk is held deterministically (./search-fixture.ts `openWalking`): its first `readdir` of `deep/`
 * blocks until the test releases it, so the list cannot finish, and has not reached `deep/`'s files, while the
 * searches run. Every conformance suite that uses `searchPair` checks this state too, with the root held.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, type BackendName } from '../../support/backends.ts';
import { comparable, FRESH, openSearch, openWalking, pathsOf, textHit, withoutFreshness, type SearchFixture, type SearchInput } from './search-fixture.ts';

const BUILDING = { state: 'building', progress: 0 } as const;

const SEED = {
  'a.txt': 'walk-token alpha\n',
  'b/c.txt': 'walk-token beta\nand walk-token again\n',
  'deep/in.txt': 'walk-token deep inside\n',
  'deep/er/most.ts': 'export function walkTokenFn() {\n  return "walk-token";\n}\n// walk on\n',
  '.gitignore': 'gen/\n*.log\n!keep.log\n',
  'gen/out.txt': 'walk-token generated\n',
  'logs/a.log': 'walk-token log\n',
  'logs/keep.log': 'walk-token kept log\n',
  'deep/.gitignore': 'local.txt\n',
  'deep/local.txt': 'walk-token local\n',
  'node_modules/pkg/index.js': 'walk-token installed\n',
  'dist/out.js': 'walk-token built\n',
  'env/pyvenv.cfg': 'home = /usr/bin\n',
  'env/lib/site.py': 'walk-token venv\n',
  '.git/HEAD': 'ref: walk-token\n',
  '.env': 'WALK=walk-token\n',
  'big.txt': 'walk-token big\n' + 'x'.repeat(1024 * 1024),
  'bin.dat': 'walk-token nul\n\0\n',
  'links/to-a.txt': { link: '../a.txt' },
  'links/deep': { link: '../deep' },
};

/** The list held at `deep/`. */
const openHeld = (backend: BackendName) => openWalking(backend, SEED, { held: (root) => `${root}/deep` });

describe.each(BACKENDS)('GET /workspace/search before the file list has been walked (%s)', (backend) => {
  let walking: (SearchFixture & { release(): void }) | undefined;
  let fresh: SearchFixture | undefined;
  afterEach(async () => {
    await Promise.all([walking?.cleanup(), fresh?.cleanup()]);
    walking = fresh = undefined;
  });

  it('answers building at once, with the hits the list has not reached yet; then fresh with the same answer', async () => {
    walking = await openHeld(backend);
    const input = { query: 'walk-token', mode: 'find' } as const;
    const before = await walking.search(input);
    expect(before.freshness).toEqual(BUILDING);
    expect(before.groups).toEqual([
      { path: 'b/c.txt', score: 1, hits: [textHit(1, 'walk-token beta', 'walk-token'), textHit(2, 'and walk-token again', 'walk-token')] },
      { path: '.env', score: 1 / 2, hits: [textHit(1, 'WALK=walk-token', 'walk-token')] },
      { path: 'a.txt', score: 1 / 3, hits: [textHit(1, 'walk-token alpha', 'walk-token')] },
      { path: 'deep/er/most.ts', score: 1 / 4, hits: [{ ...textHit(2, '  return "walk-token";', 'walk-token'), context: 'walkTokenFn (fn)' }] },
      { path: 'deep/in.txt', score: 1 / 5, hits: [textHit(1, 'walk-token deep inside', 'walk-token')] },
      { path: 'logs/keep.log', score: 1 / 6, hits: [textHit(1, 'walk-token kept log', 'walk-token')] },
    ]);
    // Still held: the list has not been walked, so that answer was not the list's.
    expect(walking.fixture.app.search.readyFileList()).toBeUndefined();

    walking.release();
    await walking.settle();
    const after = await walking.search(input);
    expect(after.freshness).toEqual(FRESH);
    expect(withoutFreshness(after)).toEqual(withoutFreshness(before));
  });

  // Not `q`: its prose part (BM25) is fed after the content index's first build, so no `building` answer has it.
  it('lists and searches what the list will, under the same rules, in find, files and the symbol modes', async () => {
    [walking, fresh] = await Promise.all([openHeld(backend), openSearch(backend, SEED)]);
    const inputs: SearchInput[] = [
      { query: 'walk-token', mode: 'find', includeIgnored: 'true' },
      { query: 'walk-token', mode: 'find', include: 'deep, !*.ts' },
      { query: 'walk-token', mode: 'find', include: '.log', includeIgnored: 'true' },
      { query: 'txt', mode: 'files' },
      { query: 'txt', mode: 'files', includeIgnored: 'true' },
      { query: 'walkTokenFn', mode: 'def' },
      { query: 'walk', mode: 'refs' },
      { query: 'walk-token', mode: 'find', limit: '2' },
    ];
    for (const input of inputs) {
      const [listed, walked] = await Promise.all([fresh.fixture.client.workspace.search(input), walking.search(input)]);
      expect(walked.freshness, JSON.stringify(input)).toEqual(BUILDING);
      expect(comparable(walked), JSON.stringify(input)).toEqual(comparable(listed));
    }
    // `sym` the same, and says its symbols are still being indexed (they are: the pass follows the list).
    const symInput = { query: 'wlkTkn', mode: 'sym' } as const;
    const [symListed, symWalked] = await Promise.all([fresh.fixture.client.workspace.search(symInput), walking.search(symInput)]);
    expect(pathsOf(symListed)).toEqual(['deep/er/most.ts']);
    expect(comparable(symWalked)).toEqual({ ...comparable(symListed), note: 'symbols are still being indexed (0%): some files are not searched yet' });
    expect(pathsOf(await walking.search({ query: 'walk-token', mode: 'find', includeIgnored: 'true' }))).toEqual([
      'b/c.txt', '.env', 'a.txt', 'deep/er/most.ts', 'deep/in.txt', 'deep/local.txt', 'dist/out.js', 'env/lib/site.py',
      'gen/out.txt', 'logs/a.log', 'logs/keep.log', 'node_modules/pkg/index.js',
    ]);
  });

  it('a cursor from a building page pages on in the list\'s answer once it is ready', async () => {
    walking = await openHeld(backend);
    const input = { query: 'walk-token', mode: 'find', limit: '2' } as const;
    const first = await walking.search(input);
    expect(first.freshness).toEqual(BUILDING);
    expect(pathsOf(first)).toEqual(['b/c.txt', '.env']);
    walking.release();
    await walking.settle();
    const second = await walking.search({ ...input, after: first.cursor! });
    expect(second.freshness).toEqual(FRESH);
    expect(pathsOf(second)).toEqual(['a.txt', 'deep/er/most.ts']);
    expect(second.total).toBe(first.total);
  });
});
