import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FsError } from '../../../adapters/fs/fs-error.ts';
import {
  checkBranchName,
  checkCommit,
  checkFile,
  checkFileParentInside,
  checkFromRef,
  refName,
} from '../../../core/git/git-args.ts';
import { WorkspaceError } from '../../../core/errors/workspace-error.ts';
import { GIT_TEST_ENV } from './temp-repos.ts';

/** What `check` threw, as `{code, status, message}`, or `{value}` when it returned. */
function outcome(check: () => string): { value: string } | { code: string; status: number; message: string } {
  try {
    return { value: check() };
  } catch (error) {
    if (!(error instanceof WorkspaceError)) throw error;
    return { code: error.code, status: error.status, message: error.message };
  }
}

const invalid = (message: string) => ({ code: 'bad-request', status: 400, message });

/** A small seeded generator, so the generated cases are the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** Every C0 control, DEL and every C1 control. */
const CONTROLS = [
  ...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)),
  '\x7f',
  ...Array.from({ length: 32 }, (_, i) => String.fromCharCode(0x80 + i)),
];

describe('checkFile', () => {
  it.each([
    'a.txt',
    'dir/',
    'src/deep/file.ts',
    'a b.txt',
    ' edge spaces ',
    'ünïcödé/日本.md',
    '-rf',
    '--all',
    '-',
    '.gitignore',
    '.github/workflows/ci.yml',
    'x.git',
    '.gitx/y',
    'a/./b',
    'a/../b',
    './a',
    'a//b',
    'back\\slash',
    '..\\x',
    '...',
    '..a',
    'a..',
    'new\nline',
    '*',
    ':/',
    ':(glob)*',
  ])('accepts %j unchanged', (file) => {
    expect(outcome(() => checkFile(file))).toEqual({ value: file });
  });

  it.each([
    '',
    '/etc/passwd',
    '/',
    '//a',
    'a\0b',
    '\0',
    '.',
    './',
    './.',
    'a/..',
    'a/../',
    'a/b/../..',
    '..',
    '../',
    '../a',
    'a/../../b',
    './..',
    '.git',
    '.git/',
    '.git/config',
    'sub/.git/HEAD',
    'a/.git',
    '.GIT/config',
    'x/.Git',
    'a/../.git/hooks/pre-commit',
  ])('refuses %j', (file) => {
    expect(outcome(() => checkFile(file))).toEqual(invalid('Invalid file'));
  });

  it.each([undefined, null, 1, ['a'], { path: 'a' }, true])('refuses the non-string %j', (file) => {
    expect(outcome(() => checkFile(file))).toEqual(invalid('Invalid file'));
  });

  it('accepts every control character but NUL: they are file-name bytes (status -z prints them raw)', () => {
    for (const control of CONTROLS) {
      const file = `a${control}b`;
      expect(outcome(() => checkFile(file))).toEqual(control === '\0' ? invalid('Invalid file') : { value: file });
    }
  });

  it('generated paths: refused exactly when they leave or name the root, or hold a .git segment', () => {
    const next = random(8);
    const pieces = ['a', 'b', '..', '.', '.git', '', '-x', 'c d'];
    for (let n = 0; n < 400; n++) {
      const parts = Array.from({ length: 1 + Math.floor(next() * 4) }, () => pieces[Math.floor(next() * pieces.length)]!);
      const file = parts.join('/');
      let depth = 0;
      let left = false;
      for (const part of parts) {
        if (part === '..') depth--;
        else if (part !== '.' && part !== '') depth++;
        if (depth < 0) left = true;
      }
      const refused = file === '' || file.startsWith('/') || left || depth === 0 || parts.includes('.git');
      expect(outcome(() => checkFile(file)), file).toEqual(refused ? invalid('Invalid file') : { value: file });
    }
  });
});

describe('checkFileParentInside', () => {
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'git-args-')));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));
  const root = join(parent, 'repo');
  const outside = join(parent, 'outside');
  mkdirSync(join(root, 'inner/deeper'), { recursive: true });
  mkdirSync(outside);
  symlinkSync(outside, join(root, 'out-link'));
  symlinkSync(join(root, 'inner'), join(root, 'in-link'));
  symlinkSync('/etc', join(root, 'etc-link'));

  const check = async (file: string) => {
    try {
      await checkFileParentInside(root, file, (path) => realpath(path));
      return 'inside';
    } catch (error) {
      return error instanceof WorkspaceError ? `${error.code}: ${error.message}` : `other: ${String(error)}`;
    }
  };

  it.each([
    ['top-level.txt', 'inside'],
    ['out-link', 'inside'], // the link itself is deleted as a link: its parent is the root
    ['inner/deeper/x', 'inside'],
    ['in-link/x', 'inside'], // a link to a folder inside the repo
    ['missing/deeper/x', 'inside'], // judged by the nearest existing ancestor, the root
    ['inner/missing/x', 'inside'],
    ['out-link/x', 'bad-request: Invalid file'],
    ['out-link/missing/x', 'bad-request: Invalid file'],
    ['etc-link/passwd', 'bad-request: Invalid file'],
    ['inner/../out-link/x', 'bad-request: Invalid file'],
  ])('%j → %s', async (file, expected) => {
    expect(await check(file)).toBe(expected);
  });

  it('a root given through a link is compared by its real path', async () => {
    const linkedRoot = join(parent, 'root-link');
    symlinkSync(root, linkedRoot);
    await expect(checkFileParentInside(linkedRoot, 'inner/x', (p) => realpath(p))).resolves.toBeUndefined();
    await expect(checkFileParentInside(linkedRoot, 'out-link/x', (p) => realpath(p))).rejects.toThrow('Invalid file');
  });

  it('a missing parent by FsError not-found (the FileSystem adapter) also walks up; other errors propagate', async () => {
    const seen: string[] = [];
    const fsRealpath = async (path: string) => {
      seen.push(path);
      if (path === '/r') return '/r';
      if (path === '/r/gone/sub') throw new FsError('not-found', path);
      if (path === '/r/gone') return '/elsewhere';
      throw new Error(`unexpected ${path}`);
    };
    await expect(checkFileParentInside('/r', 'gone/sub/x', fsRealpath)).rejects.toThrow('Invalid file');
    expect(seen).toEqual(['/r', '/r/gone/sub', '/r/gone']);
    const denied = async (path: string) => {
      if (path === '/r') return '/r';
      throw new FsError('permission-denied', path);
    };
    await expect(checkFileParentInside('/r', 'a/x', denied)).rejects.toMatchObject({ code: 'permission-denied' });
  });
});

describe('checkCommit', () => {
  it.each([
    ['abcd', 'abcd'],
    ['  0123abcdef  ', '0123abcdef'],
    ['\tDEADBEEF\n', 'DEADBEEF'],
    ['a'.repeat(40), 'a'.repeat(40)],
    ['f'.repeat(64), 'f'.repeat(64)],
  ])('accepts %j as %j', (commit, cleaned) => {
    expect(outcome(() => checkCommit(commit))).toEqual({ value: cleaned });
  });

  it.each([
    '',
    '   ',
    'abc',
    'a'.repeat(65),
    'HEAD',
    'main',
    'HEAD~1',
    'abcd^',
    'abcdg',
    '--abort',
    '-abcd',
    '--all',
    'ab cd',
    'abcd\0',
    'abcd..ef01',
    '0x1234',
    undefined,
    1234,
  ])('refuses %j', (commit) => {
    expect(outcome(() => checkCommit(commit))).toEqual(invalid('Invalid commit'));
  });

  it('generated: every length from 0 to 80 of hex digits; only 4..64 pass', () => {
    const next = random(4);
    for (let length = 0; length <= 80; length++) {
      const hex = Array.from({ length }, () => '0123456789abcdefABCDEF'[Math.floor(next() * 22)]).join('');
      const ok = length >= 4 && length <= 64;
      expect(outcome(() => checkCommit(hex))).toEqual(ok ? { value: hex } : invalid('Invalid commit'));
    }
  });
});

describe('checkBranchName and checkFromRef: the same rule, each its message', () => {
  const accepted = [
    'main',
    'feature/x',
    'a/b/c',
    'v1.0',
    'fix-1',
    'user@host',
    'x@',
    'a.b',
    'release/2024.01',
    'ünïcode',
    'a-',
    'origin/main',
    'HEAD',
    'deadbeef',
  ];
  it.each(accepted)('accepts %j', (name) => {
    expect(outcome(() => checkBranchName(name))).toEqual({ value: name });
    expect(outcome(() => checkFromRef(name))).toEqual({ value: name });
  });

  it('trims', () => {
    expect(outcome(() => checkBranchName('  feature/x\n'))).toEqual({ value: 'feature/x' });
    expect(outcome(() => checkFromRef('\tmain '))).toEqual({ value: 'main' });
  });

  const refused = [
    ['', 'empty'],
    ['   ', 'blank'],
    ['-b', 'option'],
    ['--force', 'option'],
    ['-', 'option'],
    ['  -x', 'option after trimming'],
    ['--upload-pack=evil', 'option'],
    ['a..b', '..'],
    ['..', '..'],
    ['main..', '..'],
    ['a//b', '//'],
    ['a@{1}', '@{'],
    ['@{u}', '@{'],
    ['@{-1}', '@{'],
    ['a b', 'space'],
    ['a~1', '~'],
    ['a^', '^'],
    ['a:b', ':'],
    ['a?', '?'],
    ['a*', '*'],
    ['a[b', '['],
    ['a\\b', '\\'],
    ['/main', 'leading /'],
    ['main/', 'trailing /'],
    ['main.', 'trailing .'],
    ['main.lock', 'trailing .lock'],
    ['a.lock/b', 'a segment ending .lock'],
    ['.hidden', 'segment starting .'],
    ['a/.b', 'segment starting .'],
    ['@', '@'],
  ];
  it.each(refused)('refuses %j (%s)', (name) => {
    expect(outcome(() => checkBranchName(name))).toEqual(invalid('Invalid branch name'));
    expect(outcome(() => checkFromRef(name))).toEqual(invalid('Invalid ref'));
  });

  it.each([undefined, null, 3, ['main'], { name: 'main' }])('refuses the non-string %j', (name) => {
    expect(outcome(() => checkBranchName(name))).toEqual(invalid('Invalid branch name'));
    expect(outcome(() => checkFromRef(name))).toEqual(invalid('Invalid ref'));
  });

  it('refuses every control character inside a name (C0, DEL, C1)', () => {
    for (const control of CONTROLS) {
      expect(refName(`a${control}b`), JSON.stringify(control)).toBeUndefined();
    }
  });

  it('generated names: everything the rule lets through, git check-ref-format accepts as a branch', () => {
    const next = random(2);
    const alphabet = ['a', 'b', 'Z', '0', '-', '.', '/', '@', '{', '}', '_', 'é', ' ', '~', ':', '\x01', 'lock'];
    const passed = new Set<string>();
    let refusedCount = 0;
    while (passed.size < 60) {
      const length = 1 + Math.floor(next() * 8);
      const name = Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      const cleaned = refName(name);
      if (cleaned === undefined) refusedCount++;
      else passed.add(cleaned);
    }
    expect(refusedCount).toBeGreaterThan(60); // the generator reaches the refusals too
    for (const name of passed) {
      const normalized = execFileSync('git', ['check-ref-format', '--normalize', `refs/heads/${name}`], {
        env: GIT_TEST_ENV,
        encoding: 'utf8',
      });
      expect(normalized.trim(), name).toBe(`refs/heads/${name}`);
    }
  });
});
