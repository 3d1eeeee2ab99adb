/**
 * `/ws` `search_in_files` on a daemon whose search engine is still building (the file list's first walk held
 * here, so neither the list nor the content index can answer): the engine's prefilter reads the files on the scan
 * pool's worker threads and rules out those that lack the query's literals, so the search reads only the rest
 * itself — with exactly the answer it gives reading everything. Real files, a real pool, a real WebSocket.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { createScanPool, type ScanPool } from '../../../adapters/search/scan-pool.ts';
import type { ScanRequest } from '../../../core/search/text/scanner.ts';
import type { NodeServer } from '../../../runtime/node/server.ts';
import { buildTree, type BuiltTree, type Seed } from '../../support/backends.ts';
import { RpcClient, startTestServer } from '../../support/rpc-client.ts';

const latin1 = (text: string) => Uint8Array.from([...text].map((char) => char.charCodeAt(0)));

const SEED: Seed = {
  'a.txt': 'Hello world\r\nhello again\nsay HELLO',
  'none.txt': 'nothing to see here\n',
  'src/code.ts': 'const helloWorld = 1;\nhello(); // hello\n',
  'src/plain.ts': 'export const x = 1;\n',
  'src/deep/more.ts': 'let x = hello_there;\n',
  // Under the engine's ignore rules, so the prefilter never reads it; search_in_files does not know them.
  '.gitignore': 'gen/\n',
  'gen/out.txt': 'hello generated\n',
  'node_modules/dep/index.js': 'hello',
  // Case folding beyond ASCII: U+212A KELVIN SIGN folds to k; a byte order mark stays in line 1.
  'kelvin.txt': 'the \u212Aelvin scale\n',
  'bom.txt': '\uFEFFhello with a mark\n',
  // Not UTF-8: decoded leniently, the needle right after an invalid byte.
  'latin.txt': latin1('caf\xe9hello\n'),
  'bin.dat': 'hello\0world',
  'to-a': { link: 'a.txt' },
};

interface Held {
  tree: BuiltTree;
  server: NodeServer;
  rpc: RpcClient;
  pool: ScanPool;
  /** Files search_in_files read itself (absolute paths), since the last `reset`. */
  reads: Set<string>;
  /** The ruleOut calls the engine made, and what each ruled out. */
  ruledOut: Set<string>[];
  release(): void;
  /** Starts the engine; resolves once its list is held in its first walk. */
  startHeld(): Promise<void>;
  at(rel: string): string;
  search(args: Record<string, unknown>): Promise<unknown>;
  cleanup(): Promise<void>;
}

/** A server over SEED whose search engine has started and whose list is held in its first walk. */
async function openHeld(): Promise<Held> {
  const tree = await buildTree('node', SEED);
  const reads = new Set<string>();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const reachedGate = new Promise<void>((resolve) => (reached = resolve));
  let armed = false;
  let holding = false;
  const fs = new Proxy(tree.fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      if (key === 'read') {
        return (path: string, ...rest: unknown[]) => {
          reads.add(path);
          return (value as (...args: unknown[]) => unknown).call(target, path, ...rest);
        };
      }
      if (key !== 'readdir') return value.bind(target);
      return async (path: string, ...rest: unknown[]) => {
        if (armed && !holding && path === tree.root) {
          holding = true; // the list's first readdir: later ones (the prefilter's walk, the search's) pass
          reached();
          await gate;
        }
        return (value as (...args: unknown[]) => unknown).call(target, path, ...rest);
      };
    },
  }) as FileSystem;
  const pool = createScanPool({ workers: 2 });
  const ruledOut: Set<string>[] = [];
  const scanner = {
    scan: (request: ScanRequest) => pool.scan(request),
    async ruleOut(request: ScanRequest) {
      const out = await pool.ruleOut(request);
      ruledOut.push(out);
      return out;
    },
  };
  const server = await startTestServer(tree.root, { fs, search: { scanner } });
  const rpc = await RpcClient.connect(server);
  const at = (rel: string) => (rel === '' ? tree.root : `${tree.root}/${rel}`);
  return {
    tree,
    server,
    rpc,
    pool,
    reads,
    ruledOut,
    release,
    at,
    async search(args) {
      const { id: _, ...rest } = await rpc.call('search_in_files', args);
      return rest;
    },
    async startHeld() {
      armed = true;
      server.search.start();
      await reachedGate;
    },
    async cleanup() {
      release();
      await rpc.close();
      await server.close();
      await pool.close();
      await tree.cleanup();
    },
  };
}

let held: Held | undefined;
afterEach(async () => {
  await held?.cleanup();
  held = undefined;
});

const QUERIES = [
  { query: 'hello' },
  { query: 'HELLO', caseSensitive: true },
  { query: 'hel+o', regex: true },
  { query: 'hello', wholeWord: true },
  { query: 'kelvin' },
  { query: 'there' },
  { query: '(?i)HELLO_there', regex: true, caseSensitive: true },
];

describe('/ws search_in_files while the search engine builds', () => {
  it('reads on the main thread only what the worker prefilter could not rule out, with the same answer', async () => {
    const h = (held = await openHeld());
    // The answers with nothing ruled out: the engine not started yet reads every file.
    const before = [];
    for (const args of QUERIES) before.push(await h.search({ path: h.tree.root, ...args }));
    expect(h.ruledOut).toEqual([]);
    expect(h.reads.has(h.at('none.txt'))).toBe(true);

    await h.startHeld();
    expect(h.server.search.readyFileList()).toBeUndefined(); // still building: the list is held
    for (const [i, args] of QUERIES.entries()) {
      h.reads.clear();
      expect(await h.search({ path: h.tree.root, ...args }), JSON.stringify(args)).toEqual(before[i]);
      expect(h.ruledOut).toHaveLength(i + 1); // the prefilter answered this query
    }
    // `kelvin`: the files without the needle were not read by the search itself; the ones the prefilter never
    // saw (ignored by the engine's rules, a link) or that hold the needle's fold-safe part were.
    const kelvin = h.ruledOut[QUERIES.findIndex((args) => args.query === 'kelvin')]!;
    expect(kelvin).toEqual(new Set(['a.txt', 'none.txt', 'src/code.ts', 'src/plain.ts', 'src/deep/more.ts', 'bom.txt', 'latin.txt', 'bin.dat', '.gitignore'].map(h.at)));
    // The last query's reads: `there` is in src/deep/more.ts alone among the files the prefilter read.
    expect([...h.reads].sort()).toEqual([h.at('gen/out.txt'), h.at('src/deep/more.ts'), h.at('to-a')].sort());
  });

  it('finds what the prefilter never saw and what only lenient decoding or case folding shows', async () => {
    const h = (held = await openHeld());
    await h.startHeld();
    const matches = (await h.search({ path: h.tree.root, query: 'hello' })) as { result: { file: string; lineNumber: number; lineText: string }[] };
    const files = new Set(matches.result.map((match) => match.file));
    for (const rel of ['a.txt', 'to-a', 'gen/out.txt', 'bom.txt', 'latin.txt', 'src/code.ts']) expect(files.has(h.at(rel)), rel).toBe(true);
    expect(matches.result.find((match) => match.file === h.at('bom.txt'))?.lineText).toBe('\uFEFFhello with a mark');
    expect(matches.result.find((match) => match.file === h.at('latin.txt'))?.lineText).toBe('caf\uFFFDhello');
    expect(await h.search({ path: h.tree.root, query: 'kelvin' })).toEqual({
      ok: true,
      result: [{ file: h.at('kelvin.txt'), lineNumber: 1, lineText: 'the \u212Aelvin scale', matchStart: 4, matchEnd: 10 }],
    });
  });

  it('a subfolder searched while the list still walks is read by the search itself, as before', async () => {
    const h = (held = await openHeld());
    await h.startHeld();
    h.reads.clear();
    expect(await h.search({ path: 'src', query: 'there' })).toEqual({
      ok: true,
      result: [{ file: h.at('src/deep/more.ts'), lineNumber: 1, lineText: 'let x = hello_there;', matchStart: 14, matchEnd: 19 }],
    });
    expect(h.ruledOut).toEqual([]);
    expect(h.reads.has(h.at('src/plain.ts'))).toBe(true);
  });
});
