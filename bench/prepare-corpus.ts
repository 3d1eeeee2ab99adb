/**
 * One-time preparation (idempotent; each step is skipped when its output already exists):
 *   - the Debian packages the anchors need: linux-source-6.1 (corpus), ripgrep (search anchor), wrk (load generator);
 *   - the kernel tree extracted once into .bench-cache/linux;
 *   - a 1 GiB non-sparse file and a 4 KiB text file in .bench-cache/files.
 * Runnable on its own: `node --import tsx bench/prepare-corpus.ts`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { log } from './lib/log.ts';
import { bigFileName, cacheDir, filesRoot, linuxTarball, linuxTree, smallFileName } from './lib/paths.ts';

export const BIG_FILE_BYTES = 1024 * 1024 * 1024;
export const SMALL_FILE_BYTES = 4 * 1024;

export interface PreparedCorpus {
  linuxTree: string;
  filesRoot: string;
  /** Whether `wrk` is on PATH after preparation (else the read-file figure uses the in-process generator). */
  haveWrk: boolean;
}

export function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/** Runs a command with its output passed through to our stderr, so the user sees what apt does. */
function runVisible(command: string, args: string[]): Promise<void> {
  log(`$ ${command} ${args.join(' ')}`);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 2, 2], // stdout stays the results
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolvePromise() : reject(new Error(`${command} exited with ${code ?? signal}`)),
    );
  });
}

async function ensurePackages(): Promise<void> {
  const wanted: Array<{ pkg: string; present: () => boolean }> = [
    // Once extracted, the tarball itself is no longer needed.
    { pkg: 'linux-source-6.1', present: () => existsSync(linuxTarball) || existsSync(linuxTree) },
    { pkg: 'ripgrep', present: () => hasCommand('rg') },
    { pkg: 'wrk', present: () => hasCommand('wrk') },
  ];
  const missing = wanted.filter((w) => !w.present()).map((w) => w.pkg);
  if (missing.length === 0) return;
  if (!hasCommand('apt-get')) {
    if (missing.length === 1 && missing[0] === 'wrk') return; // optional: the read-file figure falls back
    throw new Error(`missing packages (${missing.join(', ')}) and no apt-get to install them`);
  }
  log(`installing missing Debian packages: ${missing.join(', ')} (needs root)`);
  await runVisible('apt-get', ['update']);
  await runVisible('apt-get', ['install', '-y', '--no-install-recommends', ...missing]);
}

/** Extracts the tarball into a temporary folder, then renames it: a half-extracted tree is never reused. */
async function ensureLinuxTree(): Promise<void> {
  if (existsSync(linuxTree)) {
    log(`kernel tree present: ${linuxTree} (reused)`);
    return;
  }
  if (!existsSync(linuxTarball)) throw new Error(`${linuxTarball} not found (package linux-source-6.1)`);
  const staging = `${linuxTree}.extracting`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  const started = Date.now();
  log(`extracting ${linuxTarball} into ${linuxTree} (one time; takes a minute or two)…`);
  await runVisible('tar', ['-xJf', linuxTarball, '-C', staging]);
  // The tarball holds one top folder (linux-source-6.1/); the corpus is its contents.
  const top = await readdir(staging);
  const inner = top.length === 1 ? join(staging, top[0]!) : staging;
  await rename(inner, linuxTree);
  await rm(staging, { recursive: true, force: true });
  log(`extracted in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

async function ensureFiles(): Promise<void> {
  await mkdir(filesRoot, { recursive: true });
  const big = join(filesRoot, bigFileName);
  const bigStat = await stat(big).catch(() => undefined);
  if (bigStat?.size !== BIG_FILE_BYTES) {
    log(`writing ${big} (1 GiB, a random 1 MiB block repeated, not sparse)…`);
    const block = randomBytes(1024 * 1024);
    const staging = `${big}.tmp`;
    const handle = await open(staging, 'w');
    try {
      for (let written = 0; written < BIG_FILE_BYTES; written += block.length) await handle.write(block);
    } finally {
      await handle.close();
    }
    await rename(staging, big);
  }
  const small = join(filesRoot, smallFileName);
  const smallStat = await stat(small).catch(() => undefined);
  if (smallStat?.size !== SMALL_FILE_BYTES) {
    const line = 'the quick brown fox jumps over the lazy dog 0123456789 ABCDEFGHIJKLMNOPQRSTUV\n'; // 80 bytes
    const text = line.repeat(Math.ceil(SMALL_FILE_BYTES / line.length)).slice(0, SMALL_FILE_BYTES);
    await writeFile(small, text);
  }
}

export async function prepareCorpus(): Promise<PreparedCorpus> {
  await mkdir(cacheDir, { recursive: true });
  await ensurePackages();
  await ensureLinuxTree();
  await ensureFiles();
  if (!hasCommand('rg')) throw new Error('ripgrep (rg) is required for the search anchor');
  return { linuxTree, filesRoot, haveWrk: hasCommand('wrk') };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const prepared = await prepareCorpus();
  log(`ready: ${JSON.stringify(prepared)}`);
}
