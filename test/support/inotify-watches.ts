import { readdir, readFile, readlink } from 'node:fs/promises';

/** The inotify watches this process holds (every inotify fd's `inotify wd:` lines in /proc/self/fdinfo). */
export async function inotifyWatches(): Promise<number> {
  let count = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target !== 'anon_inode:inotify') continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '');
    count += info.split('\n').filter((line) => line.startsWith('inotify wd:')).length;
  }
  return count;
}
