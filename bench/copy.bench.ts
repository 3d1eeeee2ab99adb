/**
 * (copy) NodeFileSystem.copy of a folder — 100 folders × 100 files of 4 KiB, 10,101 entries — vs `cp -a` of
 * the same folder.
 *
 * Ours: `new NodeFileSystem().copy(source, target)` called in this process (the bench runner is otherwise idle
 * while it runs), the time until the promise settles. Anchor: `cp -a source target`, spawn to exit. Both
 * write a fresh target on the same filesystem, removed (untimed) after each run; medians of interleaved runs
 * after one warm-up each, warm page cache for the source. The copy is checked: the same number of files.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NodeFileSystem } from '../adapters/fs/node-file-system.ts';
import { log } from './lib/log.ts';
import { cacheDir } from './lib/paths.ts';
import type { Figure } from './lib/result.ts';
import { median, nowMs, sampleInterleaved } from './lib/stats.ts';

const RUNS = 5;
const FOLDERS = 100;
const FILES_PER_FOLDER = 100;
const FILE_BYTES = 4096;
const ENTRIES = 1 + FOLDERS + FOLDERS * FILES_PER_FOLDER;

/** The source folder (made once, then reused): written under a staging name and renamed when complete. */
export async function prepareCopySource(): Promise<string> {
  const source = join(cacheDir, 'copy-source');
  if (existsSync(source)) return source;
  log(`copy: writing ${FOLDERS} × ${FILES_PER_FOLDER} files of ${FILE_BYTES} bytes → ${source}`);
  const staging = `${source}.partial`;
  await rm(staging, { recursive: true, force: true });
  const content = Buffer.alloc(FILE_BYTES, 'copy bench\n');
  for (let d = 0; d < FOLDERS; d++) {
    const folder = join(staging, `d${String(d).padStart(3, '0')}`);
    await mkdir(folder, { recursive: true });
    await Promise.all(
      Array.from({ length: FILES_PER_FOLDER }, (_, f) => writeFile(join(folder, `f${String(f).padStart(3, '0')}.txt`), content)),
    );
  }
  await rename(staging, source);
  return source;
}

function cpA(source: string, target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('cp', ['-a', source, target], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`cp -a exited ${code}`))));
  });
}

async function countFiles(folder: string): Promise<number> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).length;
}

export async function benchCopy(): Promise<Figure> {
  const source = await prepareCopySource();
  const target = join(cacheDir, 'copy-target');
  await rm(target, { recursive: true, force: true });
  const fs = new NodeFileSystem();
  const timed = (copy: () => Promise<void>) => async () => {
    const start = nowMs();
    await copy();
    const ms = nowMs() - start;
    const files = await countFiles(target);
    await rm(target, { recursive: true });
    if (files !== FOLDERS * FILES_PER_FOLDER) throw new Error(`copy: ${files} files in the copy`);
    return ms;
  };
  const samples = await sampleInterleaved(
    RUNS,
    timed(() => fs.copy(source, target)),
    timed(() => cpA(source, target)),
  );
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
  log(`copy: ours [${fmt(samples.ours)}] ms | cp -a [${fmt(samples.anchor)}] ms`);
  return {
    figure: `copy folder ${ENTRIES} entries vs cp -a`,
    unit: 'ms',
    ours: median(samples.ours),
    anchor: median(samples.anchor),
    higherIsBetter: false,
    note: `${FOLDERS} × ${FILES_PER_FOLDER} files of ${FILE_BYTES / 1024} KiB, NodeFileSystem.copy in-process`,
  };
}
