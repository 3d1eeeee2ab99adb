/**
 * Processes started in a folder (git, commands, terminals) with `within` (adapters/fs/node-confinement.ts,
 * pinWorkingFolder): the folder was checked inside the root, then traded for a link to a folder beside it before
 * the process starts. The process is refused, and nothing happens in the outside folder; without `within` the same
 * call runs there (each case shows its own escape first). A folder that stays inside works as before, and the
 * process sees its real path as its working folder.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitProcess } from '../../../adapters/git/git-process.ts';
import { NodeProcessAdapter } from '../../../adapters/process/node-process-adapter.ts';
import { NodePtyAdapter } from '../../../adapters/pty/node-pty-adapter.ts';
import { pinWorkingFolder } from '../../../adapters/fs/node-confinement.ts';
import { GitFolderError } from '../../../core/git/git-runner.ts';

let container: string;
let root: string;
let outside: string;

beforeEach(async () => {
  container = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-cwd-')));
  root = join(container, 'ws');
  outside = join(container, 'outside');
  await mkdir(join(root, 'inside'), { recursive: true });
  await mkdir(join(root, 'swapped'), { recursive: true });
  await mkdir(outside);
});
afterEach(async () => {
  await rm(container, { recursive: true, force: true });
});

/** What the caller checked (a folder inside) becomes a link to the outside folder. */
async function trade(): Promise<string> {
  await rename(join(root, 'swapped'), join(root, 'swapped-held'));
  await symlink(outside, join(root, 'swapped'));
  return join(root, 'swapped');
}

describe('git', () => {
  const git = (within?: string) => createGitProcess({ root, ...(within === undefined ? {} : { within }) });

  it('git init in a folder traded for a link out: refused as missing, no repository made outside', async () => {
    const folder = await trade();
    await git().run(['init', '-q'], { cwd: folder });
    expect(existsSync(join(outside, '.git'))).toBe(true); // unconfined: it ran outside
    await rm(join(outside, '.git'), { recursive: true });

    await expect(git(root).run(['init', '-q'], { cwd: folder })).rejects.toEqual(new GitFolderError(folder, 'missing'));
    expect(await readdir(outside)).toEqual([]);
  });

  it('runs in a folder inside, which it sees by its real path', async () => {
    const output = await git(root).run(['rev-parse', '--show-prefix'], { cwd: join(root, 'inside') }).catch((error: unknown) => error);
    // Not a repository yet: git's own answer, from the folder itself.
    expect(output).toMatchObject({ code: 128 });
    execFileSync('git', ['init', '-q'], { cwd: root });
    const top = await git(root).run(['rev-parse', '--show-toplevel'], { cwd: join(root, 'inside') });
    expect(new TextDecoder().decode(top.stdout).trim()).toBe(root);
  });
});

describe('commands', () => {
  const run = (adapter: NodeProcessAdapter, cwd: string) =>
    adapter.run({ command: 'pwd -P && touch made-here', cwd, timeoutMs: 10_000, maxOutputBytes: 4096 });

  it('a command in a folder traded for a link out: refused, nothing made outside', async () => {
    const folder = await trade();
    expect(new TextDecoder().decode((await run(new NodeProcessAdapter(), folder)).output).trim()).toBe(outside);
    await rm(join(outside, 'made-here'));

    await expect(run(new NodeProcessAdapter({ within: root }), folder)).rejects.toThrow(/cannot run a command in .*swapped/);
    expect(await readdir(outside)).toEqual([]);
  });

  it('runs in a folder inside, which it sees by its real path', async () => {
    const result = await run(new NodeProcessAdapter({ within: root }), join(root, 'inside'));
    expect([result.exitCode, new TextDecoder().decode(result.output).trim()]).toEqual([0, join(root, 'inside')]);
    expect(existsSync(join(root, 'inside', 'made-here'))).toBe(true);
  });
});

describe('terminals', () => {
  const started = (adapter: NodePtyAdapter, cwd: string) =>
    new Promise<string>((resolve) => {
      const pty = adapter.spawn({ shell: '/bin/sh', args: ['-c', 'pwd -P'], cwd, cols: 80, rows: 24 });
      let text = '';
      pty.onData((data) => (text += new TextDecoder().decode(data)));
      pty.onExit(() => resolve(text.trim()));
    });

  it('a terminal in a folder traded for a link out: refused', async () => {
    const folder = await trade();
    expect(await started(new NodePtyAdapter(), folder)).toBe(outside);
    expect(() => new NodePtyAdapter({ within: root }).spawn({ shell: '/bin/sh', args: ['-c', 'pwd'], cwd: folder, cols: 80, rows: 24 })).toThrow(
      /leads outside/,
    );
  });

  it('starts in a folder inside, which it sees by its real path', async () => {
    expect(await started(new NodePtyAdapter({ within: root }), join(root, 'inside'))).toBe(join(root, 'inside'));
  });
});

describe('a working folder that cannot be opened when the process starts', () => {
  // A link being replaced is missing for an instant: handing the child the path would let it resolve the path again
  // itself, after the link came back pointing out (git once fetched in the outside repository so).
  it('is never handed on as a path: missing fails as missing, a file as a file, and a link made since is not followed', async () => {
    const missing = join(root, 'flip');
    const missingCwd = pinWorkingFolder(missing, root);
    await symlink(outside, missing); // back, leading out, before the child starts
    expect(missingCwd.cwd).not.toBe(missing);
    await expect(spawned(missingCwd.cwd)).resolves.toBe('ENOENT');
    execFileSync('git', ['init', '-q'], { cwd: outside });
    await expect(createGitProcess({ root, within: root }).run(['fetch', '-q', outside], { cwd: missing })).rejects.toEqual(new GitFolderError(missing, 'missing'));
    expect(existsSync(join(outside, '.git', 'FETCH_HEAD'))).toBe(false);

    await writeFile(join(root, 'a-file'), 'x');
    await expect(spawned(pinWorkingFolder(join(root, 'a-file'), root).cwd)).resolves.toBe('ENOTDIR');
    await expect(spawned(pinWorkingFolder(join(root, 'a-file', 'under'), root).cwd)).resolves.toBe('ENOTDIR');
  });
});

/** The error code a process started in `cwd` fails with (or 'started'). */
function spawned(cwd: string): Promise<string> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn('true', { cwd });
    } catch (error) {
      resolve((error as NodeJS.ErrnoException).code ?? 'error'); // under a file: thrown at once
      return;
    }
    child.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    child.on('exit', () => resolve('started'));
  });
}
