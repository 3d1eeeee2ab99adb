import { execFileSync } from 'node:child_process';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { ANSWERS_PER_MATCHER, createIgnoreRules, REMEMBERED_FOLDERS, staleRulesFolder } from '../../../core/ignore/ignore-rules.ts';
import { readRulesFile } from '../../../core/ignore/rules-file.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

/**
 * A tree exercising every gitignore rule the engine claims (nested files, negation, a deeper file overriding a
 * shallower one, directory-only and anchored patterns, `**`, a file inside an excluded folder that a pattern
 * tries to re-include, a folder re-included by a deeper file, .git/info/exclude below every .gitignore).
 * Git itself is the oracle: `git check-ignore` answers for every path on disk.
 */
const SCENARIO: Record<string, string> = {
  '.gitignore': [
    '# comment',
    '*.log',
    'build/',
    '/anchored.txt',
    'docs/*.md',
    '!docs/keep.md',
    'out/',
    '!out/keep.txt',
    'temp*',
    '!temp-keep',
    'deep/**/gen/',
    'vendor',
    'weird\\ name.txt',
    'Case.txt',
    'q/*/',
    '',
  ].join('\n'),
  'q/.gitignore': '!*/\n',
  'q/[a]*? #!/f.txt': '',
  'q/b/f.txt': '',
  'q/c.txt': '',
  'src/.gitignore': '!build/\n*.tmp\n!important.log\n/local-only\n!x.bak\n',
  'src/build/.gitignore': '!kept.log\n',
  'a.log': '',
  'sub/a.log': '',
  'build/x.js': '',
  'src/build/x.js': '',
  'src/build/y.log': '',
  'src/build/kept.log': '',
  'src/build/inner/z.log': '',
  'anchored.txt': '',
  'sub/anchored.txt': '',
  'docs/a.md': '',
  'docs/keep.md': '',
  'docs/sub/b.md': '',
  'out/keep.txt': '',
  'out/other.txt': '',
  'temp1': '',
  'temp-keep': '',
  'tempdir/file': '',
  'deep/a/gen/x': '',
  'deep/gen/y': '',
  'deep/gen.txt': '',
  'src/x.tmp': '',
  'src/important.log': '',
  'src/local-only': '',
  'src/sub/local-only': '',
  'secret.txt': '',
  'src/secret.txt': '',
  'x.bak': '',
  'src/x.bak': '',
  'vendor/v.txt': '',
  'src/vendor/v.txt': '',
  'weird name.txt': '',
  'case.txt': '',
  'Case.txt': '',
  'plain.txt': '',
  'src/plain.ts': '',
};
const INFO_EXCLUDE = 'secret.txt\n*.bak\n';

interface PathCase {
  relPath: string;
  isDir: boolean;
}

async function listAll(root: string, rel = ''): Promise<PathCase[]> {
  const out: PathCase[] = [];
  for (const entry of await readdir(rel === '' ? root : `${root}/${rel}`, { withFileTypes: true })) {
    if (entry.name === '.git') continue;
    const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
    out.push({ relPath, isDir: entry.isDirectory() });
    if (entry.isDirectory()) out.push(...(await listAll(root, relPath)));
  }
  return out;
}

function gitIgnoredPaths(root: string, paths: PathCase[]): Set<string> {
  const input = paths.map((p) => p.relPath).join('\n') + '\n';
  let out = '';
  try {
    out = execFileSync('git', ['check-ignore', '--stdin'], { cwd: root, input, encoding: 'utf8' });
  } catch (error) {
    // Exit code 1 means "nothing ignored"; anything else is a real failure.
    if ((error as { status?: number }).status !== 1) throw error;
  }
  return new Set(out.split('\n').filter((line) => line !== ''));
}

describe('createIgnoreRules agrees with git check-ignore on every path', () => {
  let ws: TempWorkspace;
  let paths: PathCase[];
  let gitSays: Set<string>;

  beforeAll(async () => {
    ws = await tempWorkspace(SCENARIO);
    execFileSync('git', ['init', '-q', '.'], { cwd: ws.root });
    await writeFile(`${ws.root}/.git/info/exclude`, INFO_EXCLUDE);
    paths = await listAll(ws.root);
    gitSays = gitIgnoredPaths(ws.root, paths);
  });
  afterAll(() => ws.cleanup());

  it('the scenario really exercises both answers', () => {
    expect(paths.length).toBeGreaterThan(50);
    // Spot checks of git's own answers, so a broken oracle cannot pass silently.
    expect(gitSays.has('out/keep.txt')).toBe(true); // cannot re-include inside an excluded folder
    expect(gitSays.has('src/build/x.js')).toBe(false); // folder re-included by a deeper .gitignore
    expect(gitSays.has('src/build/y.log')).toBe(true); // ...where the root's *.log still applies
    expect(gitSays.has('src/build/kept.log')).toBe(false); // ...unless a deeper file negates it
    expect(gitSays.has('src/x.bak')).toBe(false); // a .gitignore overrides .git/info/exclude
    expect(gitSays.has('q/[a]*? #!/f.txt')).toBe(false); // re-included folder with glob characters in its name
  });

  const backends: [string, (root: string) => Promise<{ fs: FileSystem; root: string }>][] = [
    ['NodeFileSystem', async (root) => ({ fs: new NodeFileSystem(), root })],
    [
      'MemoryFileSystem',
      async () => {
        const seed: Record<string, string> = { '/ws/.git/info/exclude': INFO_EXCLUDE };
        for (const [rel, content] of Object.entries(SCENARIO)) seed[`/ws/${rel}`] = content;
        return { fs: new MemoryFileSystem(seed), root: '/ws' };
      },
    ],
  ];
  for (const [name, make] of backends) {
    it(`over ${name}`, async () => {
      const { fs, root } = await make(ws.root);
      const rules = createIgnoreRules(fs, root);
      const ours = new Set<string>();
      for (const { relPath, isDir } of paths) if (await rules.isIgnored(relPath, isDir)) ours.add(relPath);
      expect([...ours].sort()).toEqual([...gitSays].sort());
    });
  }

  it('a long-lived instance agrees too, round after round, across its matchers starting afresh', async () => {
    const seed: Record<string, string> = { '/ws/.git/info/exclude': INFO_EXCLUDE };
    for (const [rel, content] of Object.entries(SCENARIO)) seed[`/ws/${rel}`] = content;
    const fs = new MemoryFileSystem(seed);
    const rules = createIgnoreRules(fs, '/ws', { longLived: true });
    // Each round asks every matcher about every path: a few rounds pass ANSWERS_PER_MATCHER questions.
    const rounds = Math.ceil((3 * ANSWERS_PER_MATCHER) / paths.length);
    for (let round = 0; round < rounds; round++) {
      const ours = new Set<string>();
      for (const { relPath, isDir } of paths) if (await rules.isIgnored(relPath, isDir)) ours.add(relPath);
      expect([...ours].sort(), `round ${round}`).toEqual([...gitSays].sort());
    }
  });
});

describe('the matchers a long-lived instance asks', () => {
  it('are its own: the matcher shared with walks is never asked, so it remembers no path that came and went', async () => {
    const fs = new MemoryFileSystem({ '/ws/.gitignore': '*.tmp\n.*\n', '/ws/a/x.txt': '' });
    const shared = (await readRulesFile(fs, '/ws/.gitignore'))!.rules;
    const asked: string[] = [];
    const test = shared.test.bind(shared);
    shared.test = (path) => {
      asked.push(path);
      return test(path);
    };
    const longLived = createIgnoreRules(fs, '/ws', { longLived: true });
    for (let i = 0; i < 100; i++) expect(await longLived.isIgnored(`a/.wsapi-${i}.tmp`, false)).toBe(true);
    expect(await longLived.isIgnored('a/x.txt', false)).toBe(false);
    expect(asked).toEqual([]);
    // A walk's instance shares it: what one walk learnt, the next one reuses.
    expect(await createIgnoreRules(fs, '/ws').isIgnored('a/y.tmp', false)).toBe(true);
    expect(asked).toContain('a/y.tmp');
  });
});

describe('createIgnoreRules', () => {
  const memory = (files: Record<string, string>) => {
    const seed: Record<string, string> = {};
    for (const [rel, content] of Object.entries(files)) seed[`/ws/${rel}`] = content;
    return new MemoryFileSystem(seed);
  };

  it('always ignores .git and package stores, and a .gitignore cannot re-include them', async () => {
    const fs = memory({ '.gitignore': '!node_modules/\n!.git\n!bower_components/\n', 'x/.gitkeep': '' });
    await fs.mkdir('/ws/.git');
    const rules = createIgnoreRules(fs, '/ws');
    for (const dir of ['.git', '.hg', '.svn', 'node_modules', 'pkg/node_modules', 'bower_components', 'jspm_packages', '.pnpm-store', '__pypackages__']) {
      expect(await rules.isIgnored(dir, true), dir).toBe(true);
    }
    expect(await rules.isIgnored('.git', false)).toBe(true); // a worktree's .git file
    expect(await rules.isIgnored('node_modules', false)).toBe(false); // only folders are stores
    expect(await rules.isIgnored('node_modules/react/index.js', false)).toBe(true);
    expect(await rules.isIgnored('x', true)).toBe(false);
  });

  it('ignores .yarn/cache and .yarn/unplugged but not other folders called cache, nor .yarn/releases', async () => {
    const rules = createIgnoreRules(memory({}), '/ws');
    expect(await rules.isIgnored('.yarn/cache', true)).toBe(true);
    expect(await rules.isIgnored('.yarn/unplugged', true)).toBe(true);
    expect(await rules.isIgnored('app/.yarn/cache/x.zip', false)).toBe(true);
    expect(await rules.isIgnored('.yarn/releases', true)).toBe(false);
    expect(await rules.isIgnored('src/cache', true)).toBe(false);
  });

  it('recognises a virtual environment by its pyvenv.cfg, whatever the folder is called', async () => {
    const rules = createIgnoreRules(memory({ 'py/env/pyvenv.cfg': 'home = /usr', 'py/env/lib/x.py': '', 'venvish/a.py': '' }), '/ws');
    expect(await rules.isIgnored('py/env', true)).toBe(true);
    expect(await rules.isIgnored('py/env/lib/x.py', false)).toBe(true);
    expect(await rules.isIgnored('venvish/a.py', false)).toBe(false);
  });

  it('matches case-sensitively, as git does on Linux', async () => {
    const rules = createIgnoreRules(memory({ '.gitignore': 'Secret.txt\n' }), '/ws');
    expect(await rules.isIgnored('Secret.txt', false)).toBe(true);
    expect(await rules.isIgnored('secret.txt', false)).toBe(false);
  });

  it('does not follow a .gitignore that is a symlink (git 2.32+)', async () => {
    const fs = memory({ 'real-rules': '*.txt\n', 'sub/a.txt': '' });
    await fs.symlink('../real-rules', '/ws/sub/.gitignore');
    const rules = createIgnoreRules(fs, '/ws');
    expect(await rules.isIgnored('sub/a.txt', false)).toBe(false);
    expect(await (await rules.folder('sub')).ignores('a.txt', false)).toBe(false);
  });

  it('caches a folder’s rules until forget(folder), and says which folder a changed path makes stale', async () => {
    const fs = memory({ 'a/.gitignore': '*.txt\n', 'a/x.txt': '' });
    const rules = createIgnoreRules(fs, '/ws');
    expect(await rules.isIgnored('a/x.txt', false)).toBe(true);
    await fs.write('/ws/a/.gitignore', '*.md\n');
    expect(await rules.isIgnored('a/x.txt', false)).toBe(true); // still the cached rules
    expect(staleRulesFolder('a/.gitignore')).toBe('a');
    rules.forget('a');
    expect(await rules.isIgnored('a/x.txt', false)).toBe(false);
    expect(await rules.isIgnored('a/y.md', false)).toBe(true);

    expect(staleRulesFolder('.gitignore')).toBe('');
    expect(staleRulesFolder('.git/info/exclude')).toBe('.git/info');
    expect(staleRulesFolder('py/venv/pyvenv.cfg')).toBe('py/venv');
    expect(staleRulesFolder('a/b.txt')).toBeUndefined();
    expect(staleRulesFolder('a/x.gitignore')).toBeUndefined();
  });

  it('remembers a bounded number of folders: ever new names are forgotten oldest first, a folder in use stays', async () => {
    // A change feed's rules are asked about every path that changes, temp files' one-off names included.
    const fs = memory({ 'venv/pyvenv.cfg': '', 'venv/lib/x.py': '', 'a/.gitignore': '*.log\n' });
    const looked: string[] = [];
    const counted = Object.create(fs) as FileSystem;
    counted.lstat = (path) => {
      looked.push(path);
      return fs.lstat(path);
    };
    const rules = createIgnoreRules(counted, '/ws');
    const times = (path: string) => looked.filter((p) => p === path).length;
    const names = 3 * REMEMBERED_FOLDERS;
    for (let i = 0; i < names; i++) {
      expect(await rules.isIgnored(`t${i}/.wsapi-1.tmp`, false)).toBe(false);
      expect(await rules.isIgnored('venv/lib/x.py', false)).toBe(true);
      expect(await rules.isIgnored('a/b.log', false)).toBe(true);
    }
    // In use: looked at once for the whole run.
    expect(times('/ws/venv/pyvenv.cfg')).toBe(1);
    expect(times('/ws/a/.gitignore')).toBe(1);
    // Each new folder: its rules file and its pyvenv.cfg looked at once; the oldest ones are forgotten.
    expect(times('/ws/t0/.gitignore')).toBe(1);
    expect(times('/ws/t0/pyvenv.cfg')).toBe(1);
    const before = looked.length;
    expect(await rules.isIgnored(`t${names - 1}/.wsapi-1.tmp`, false)).toBe(false);
    expect(looked.length).toBe(before); // the newest: remembered
    expect(await rules.isIgnored('t0/.wsapi-1.tmp', false)).toBe(false);
    expect(times('/ws/t0/.gitignore')).toBe(2); // the oldest: forgotten, looked at again, same answer
    expect(times('/ws/t0/pyvenv.cfg')).toBe(2);
  });

  it('reloads .git/info/exclude after forget(".git/info")', async () => {
    const fs = memory({ '.git/info/exclude': 'a.txt\n' });
    const rules = createIgnoreRules(fs, '/ws');
    expect(await rules.isIgnored('a.txt', false)).toBe(true);
    await fs.write('/ws/.git/info/exclude', 'b.txt\n');
    rules.forget('.git/info');
    expect(await rules.isIgnored('a.txt', false)).toBe(false);
    expect(await rules.isIgnored('b.txt', false)).toBe(true);
  });

  it('folder(): a listing hint that there is no .gitignore skips the read', async () => {
    const fs = memory({ 'a/.gitignore': '*.txt\n' });
    const rules = createIgnoreRules(fs, '/ws');
    expect((await rules.folder('a', { gitignore: false })).ignores('x.txt', false)).toBe(false);
    const fresh = createIgnoreRules(fs, '/ws');
    expect((await fresh.folder('a', { gitignore: true })).ignores('x.txt', false)).toBe(true);
  });

  it('treats names with glob characters literally when re-including a folder', async () => {
    // The root excludes p's folders; p/.gitignore re-includes them, one with a name full of glob syntax.
    const fs = memory({ '.gitignore': 'p/*/\n', 'p/.gitignore': '!*/\n', 'p/[a]*? #!/f.txt': '', 'p/b/f.txt': '' });
    const rules = createIgnoreRules(fs, '/ws');
    expect(await rules.isIgnored('p/[a]*? #!', true)).toBe(false);
    expect((await rules.folder('p/[a]*? #!')).ignores('f.txt', false)).toBe(false);
    expect(await rules.isIgnored('p/[a]*? #!/f.txt', false)).toBe(false);
    expect(await rules.isIgnored('p/b/f.txt', false)).toBe(false);
  });

  it('reads the rules through the real disk as well (Node backend, symlinked .gitignore skipped)', async () => {
    const ws = await tempWorkspace({ 'rules': '*.txt\n', 'a/x.txt': '', 'b/.gitignore': '*.txt\n', 'b/x.txt': '' });
    try {
      await mkdir(`${ws.root}/c`);
      await writeFile(`${ws.root}/c/x.txt`, '');
      await symlink('../rules', `${ws.root}/c/.gitignore`);
      const rules = createIgnoreRules(new NodeFileSystem(), ws.root);
      expect(await rules.isIgnored('a/x.txt', false)).toBe(false);
      expect(await rules.isIgnored('b/x.txt', false)).toBe(true);
      expect(await rules.isIgnored('c/x.txt', false)).toBe(false);
    } finally {
      await ws.cleanup();
    }
  });
});
