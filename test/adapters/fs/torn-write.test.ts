/**
 * No torn files: a child process rewrites 4 MiB files in a loop through NodeFileSystem (`write` and
 * `writeStream`, two distinct contents alternating), and is killed with SIGKILL at random moments, many
 * times. After every kill each target must be exactly one of the two contents (compared by SHA-256): never
 * empty, short, or a mix. The only trace a kill may leave is our own temp file (`.wsapi-<pid>-<tag>-<16 hex>.tmp`)
 * beside the target: the write it belonged to never committed. The daemon's start-up sweep removes such leftovers
 * (adapters/fs/leftover-sweep.ts, tested in leftover-sweep.test.ts); this test only looks at what a kill leaves.
 *
 * The check is sharp: the same harness around a plain `fs.writeFile` onto the target finds torn files after
 * most kills (18 of 20 when tried here).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { contentFor, TARGETS } from './fixtures/torn-contents.ts';

/** Kills in all; `WRITERS` children run at once (each on its own folder), so spawning costs less wall time. */
const KILLS = 40;
const WRITERS = 4;
/** Each kill lands at a uniformly random moment this long after its writer started its loop. */
const MAX_KILL_DELAY_MS = 60;
const TEMP_NAME = /^\.wsapi-\d+-[0-9a-f]{8}-[0-9a-f]{16}\.tmp$/;

let work: string;
let bundle: string;

beforeAll(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'torn-write-')));
  bundle = join(work, 'torn-writer.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, 'fixtures/torn-writer.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: bundle,
    logLevel: 'silent',
  });
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Starts the writer and resolves once it is in its steady loop (every target rewritten once). */
async function startWriter(dir: string): Promise<ReturnType<typeof spawn>> {
  const child = spawn(process.execPath, [bundle, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`writer exited (${code}) before it was ready: ${stderr}`)));
  });
  return child;
}

interface KillOutcome {
  /** Which content each target held after the kill. */
  states: string[];
  /** Our temp files the kill left behind (a write it interrupted). */
  leftovers: string[];
}

const whole = new Map([
  [sha256(contentFor(0)), 'first content'],
  [sha256(contentFor(1)), 'second content'],
]);

/** One round on one folder: start a writer, kill it at a random moment, and read what every target holds. */
async function killOnce(dir: string): Promise<KillOutcome> {
  const child = await startWriter(dir);
  await new Promise((resolve) => setTimeout(resolve, Math.random() * MAX_KILL_DELAY_MS));
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  const [, signal] = await exited;
  expect(signal).toBe('SIGKILL');
  const states: string[] = [];
  for (const name of TARGETS) {
    const state = whole.get(sha256(await readFile(join(dir, name))));
    expect(state, `${dir}/${name} after a kill`).toBeDefined();
    states.push(state!);
  }
  const leftovers = (await readdir(dir)).filter((name) => !TARGETS.includes(name));
  for (const name of leftovers) await rm(join(dir, name));
  return { states, leftovers };
}

it(
  'a writer killed with SIGKILL mid-write leaves every target whole-old or whole-new, never torn',
  async () => {
    const folders: string[] = [];
    for (let w = 0; w < WRITERS; w++) {
      const dir = join(work, `writer-${w}`);
      await mkdir(dir);
      for (const name of TARGETS) await writeFile(join(dir, name), contentFor(1));
      folders.push(dir);
    }
    const outcomes: KillOutcome[] = [];
    for (let round = 0; round < KILLS / WRITERS; round++) {
      outcomes.push(...(await Promise.all(folders.map(killOnce))));
    }
    expect(outcomes).toHaveLength(KILLS);
    // Nothing but our own temp files is ever left: the write a kill interrupts had not committed.
    expect(outcomes.flatMap((o) => o.leftovers).filter((name) => !TEMP_NAME.test(name))).toEqual([]);
    // The kills really did land mid-write (else this test would prove nothing), and both contents showed up.
    expect(outcomes.filter((o) => o.leftovers.length > 0).length).toBeGreaterThan(0);
    expect([...new Set(outcomes.flatMap((o) => o.states))].sort()).toEqual(['first content', 'second content']);
  },
  60_000,
);
