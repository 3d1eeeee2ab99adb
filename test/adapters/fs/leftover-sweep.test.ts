/**
 * The start-up sweep (adapters/fs/leftover-sweep.ts) over a real folder: a dead writer's temp files and staging
 * folders go, wherever they are; a live writer's temp file — held by a real child process mid-write — stays, and
 * goes once that child is killed; entries of this very process stay (a second app in one process); a user's
 * look-alikes and anything behind a link stay.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { sweepLeftovers } from '../../../adapters/fs/leftover-sweep.ts';
import { namespaceTag } from '../../../adapters/fs/node-writer-identity.ts';
import { isRunning } from '../../support/processes.ts';

const TAG = namespaceTag();
const HEX = '0123456789abcdef';
let work: string;
let root: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'leftover-sweep-')));
  root = join(work, 'root');
  await mkdir(root);
});

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }
  await rm(work, { recursive: true, force: true });
});

/** A pid that ran a process and runs none now: a child that exited and was reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  expect(isRunning(child.pid!)).toBe(false);
  return child.pid!;
}

async function put(path: string, content = 'leftover'): Promise<string> {
  const full = join(root, path);
  await mkdir(join(full, '..'), { recursive: true });
  await writeFile(full, content);
  return full;
}

it('removes a dead writer’s temp files and staging folders at any depth, and keeps everything else', async () => {
  const dead = await deadPid();
  const removable = [
    await put(`.wsapi-${dead}-${TAG}-${HEX}.tmp`),
    await put(`deep/er/still/.wsapi-${dead}-${TAG}-${HEX}.tmp`),
    await put(`node_modules/pkg/.wsapi-${dead}-${TAG}-fedcba9876543210.tmp`), // ignored folders are walked too
  ];
  const stagingFolders = [join(root, `src/.wsapi-copy-${dead}-${TAG}-${HEX}`), join(root, `.wsapi-zip-${dead}-${TAG}-${HEX}`)];
  await put(`src/.wsapi-copy-${dead}-${TAG}-${HEX}/nested/file.txt`);
  await put(`.wsapi-zip-${dead}-${TAG}-${HEX}/0`);
  const kept = [
    await put('.wsapi-notes.txt', 'a user file'),
    await put('src/.wsapi-0123.tmp', 'a user file'),
    await put(`src/.wsapi-copy-${dead}-${TAG}-${HEX}.txt`, 'a user file'),
    await put(`.wsapi-${process.pid}-${TAG}-${HEX}.tmp`, 'this process is writing it'),
    await put(`.wsapi-${dead}-ffffffff-${HEX}.tmp`, 'another namespace’s, young'),
    await put(`.wsapi-${HEX}.tmp`, 'an old name, young'),
    await put('src/main.ts', 'export {};\n'),
  ];

  const result = await sweepLeftovers(root);

  expect(result.removed.sort()).toEqual([...removable, ...stagingFolders].sort());
  for (const path of [...removable, ...stagingFolders]) expect(existsSync(path)).toBe(false);
  for (const path of kept) expect(existsSync(path)).toBe(true);
  expect(await readFile(join(root, '.wsapi-notes.txt'), 'utf8')).toBe('a user file');
  expect(existsSync(join(root, 'src'))).toBe(true);
  expect(result.truncated).toBe(false);
});

it('keeps the temp file of a live writer in another process, and removes it once that writer is killed', async () => {
  const folder = join(root, 'busy');
  await mkdir(folder);
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/temp-file-holder.ts'), folder], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TMPDIR: work }, // tsx's compile cache: removed with the test's folder
  });
  children.push(child);
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const name = /^holding (\S+)/.exec(line.toString())?.[1];
  expect(name).toMatch(new RegExp(`^\\.wsapi-${child.pid}-${TAG}-[0-9a-f]{16}\\.tmp$`));
  const temp = join(folder, name!);

  const whileAlive = await sweepLeftovers(root);
  expect(whileAlive.removed).toEqual([]);
  expect(whileAlive.kept).toEqual([temp]);
  expect(existsSync(temp)).toBe(true);

  child.kill('SIGKILL');
  await once(child, 'exit');
  const afterDeath = await sweepLeftovers(root);
  expect(afterDeath.removed).toEqual([temp]);
  expect(existsSync(temp)).toBe(false);
  expect(existsSync(join(folder, 'target.txt'))).toBe(false); // the write never committed
});

it('follows no link: neither into a linked folder nor onto a link named like ours', async () => {
  const dead = await deadPid();
  const outside = join(work, 'outside');
  const outsideLeftover = join(outside, `.wsapi-${dead}-${TAG}-${HEX}.tmp`);
  await mkdir(outside);
  await writeFile(outsideLeftover, 'not under the root');
  await symlink(outside, join(root, 'linked'));
  const linkLikeOurs = join(root, `.wsapi-${dead}-${TAG}-fedcba9876543210.tmp`);
  await symlink(outsideLeftover, linkLikeOurs);
  const stagingLink = join(root, `.wsapi-copy-${dead}-${TAG}-${HEX}`);
  await symlink(outside, stagingLink);

  const result = await sweepLeftovers(root);

  expect(result.removed).toEqual([]);
  expect(await readFile(outsideLeftover, 'utf8')).toBe('not under the root');
  expect(existsSync(linkLikeOurs) && existsSync(stagingLink)).toBe(true);
});

it('stops at its entry cap and says so', async () => {
  for (let i = 0; i < 20; i++) await put(`many/f${i}.txt`);
  const result = await sweepLeftovers(root, { maxEntries: 5 });
  expect(result.truncated).toBe(true);
  expect(result.entries).toBe(5);
});
