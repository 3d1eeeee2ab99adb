import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (bench/lib/ → ../..). */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Everything the bench creates lives here (gitignored), so a second run reuses it. */
export const cacheDir = join(projectRoot, '.bench-cache');

/** The extracted kernel tree used as the search corpus. */
export const linuxTree = join(cacheDir, 'linux');

/** A small workspace holding the 1 GiB stream file and the 4 KiB read file. */
export const filesRoot = join(cacheDir, 'files');
export const bigFileName = 'big-1gib.bin';
export const smallFileName = 'small-4kib.txt';

export const linuxTarball = '/usr/src/linux-source-6.1.tar.xz';
