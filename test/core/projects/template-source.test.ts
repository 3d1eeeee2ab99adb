/**
 * core/projects/template-source.ts over the real disk: the shipped templates (and that their apps answer), a local
 * folder (root-relative and absolute), a git URL served over smart HTTP from a local bare repo (shallow clone at
 * `ref`, cached under `.intentic/cache/templates/` without `.git`, not fetched again), and every unusable config or
 * source as PRECONDITION_FAILED naming the problem.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { createGitProcess } from '../../../adapters/git/git-process.ts';
import { createTemplateSources, sourceFolder, type TemplateSourceOptions } from '../../../core/projects/template-source.ts';
import { WorkspaceError } from '../../../core/errors/workspace-error.ts';
import { startGitHttpServer, type GitHttpServer } from '../../support/git-http-server.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const SHIPPED = fileURLToPath(new URL('../../../templates', import.meta.url));
const fs = new NodeFileSystem();

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' }).toString();

const MANIFEST = {
  scope: '@acme/',
  shared: ['packages/config'],
  templates: {
    web: { label: 'Web', description: 'A web app', instance: ['apps/web', 'packages/ui'] },
    api: { label: 'API', description: 'A service', instance: ['services/api'] },
  },
};

/** A template source folder: templates.json plus the folders it names. */
async function writeSource(dir: string, manifest: unknown = MANIFEST): Promise<void> {
  for (const folder of ['apps/web', 'packages/ui', 'packages/config', 'services/api']) {
    await mkdir(join(dir, folder), { recursive: true });
    await writeFile(join(dir, folder, 'README.md'), `${folder}\n`);
  }
  await writeFile(join(dir, 'templates.json'), JSON.stringify(manifest));
}

const expectedTemplates = (dir: string, label: string) => ({
  dir,
  label,
  scope: '@acme/',
  shared: ['packages/config'],
  templates: [
    { key: 'api', label: 'API', description: 'A service', instance: ['services/api'] },
    { key: 'web', label: 'Web', description: 'A web app', instance: ['apps/web', 'packages/ui'] },
  ],
});

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await tempWorkspace();
});
afterEach(() => ws.cleanup());

const sources = (extra: Partial<TemplateSourceOptions> = {}) => createTemplateSources({ fs, root: ws.root, shippedDir: SHIPPED, ...extra });
const configure = (config: unknown) =>
  writeFile(join(ws.root, '.intentic/config/templates.json'), typeof config === 'string' ? config : JSON.stringify(config));

async function refusal(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof WorkspaceError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

beforeEach(() => mkdir(join(ws.root, '.intentic/config'), { recursive: true }));

describe('the shipped templates', () => {
  it('are the source without a config: node-service and static-site, in key order', async () => {
    expect(await sources().read()).toEqual({
      dir: SHIPPED,
      label: 'the shipped templates',
      scope: '@app/',
      shared: [],
      templates: [
        {
          key: 'node-service',
          label: 'Node service',
          description: 'A plain Node.js HTTP service with no dependencies: answers GET / on $PORT.',
          instance: ['apps/node-service'],
        },
        {
          key: 'static-site',
          label: 'Static site',
          description: 'An HTML and CSS site, served from its folder on $PORT by a tiny Node script with no dependencies.',
          instance: ['apps/static-site'],
        },
      ],
    });
    expect(await sources().keys()).toEqual(new Set(['node-service', 'static-site']));
  });

  it('a config without `source` ({}) is the shipped templates too; without any shipped folder it is PRECONDITION_FAILED', async () => {
    await configure({});
    expect((await sources().read()).label).toBe('the shipped templates');
    expect(await refusal(sources({ shippedDir: undefined }).read())).toEqual({
      code: 'precondition-failed',
      message: 'no template source: none is configured and none ships with this runtime',
    });
    expect(await sources({ shippedDir: undefined }).keys()).toBeUndefined();
  });

  it.each([
    ['node-service', 'server.js', (body: string) => expect(JSON.parse(body)).toEqual({ service: '@app/node-service', ok: true })],
    ['static-site', 'serve.js', (body: string) => expect(body).toContain('<h1>It works</h1>')],
  ])('%s: its dev script runs with no install and answers GET / on $PORT', async (key, script, check) => {
    const dir = join(SHIPPED, 'apps', key);
    const pkg = JSON.parse(execFileSync('cat', [join(dir, 'package.json')]).toString());
    expect(pkg.scripts.dev).toBe(`node ${script}`);
    expect(pkg.dependencies).toBeUndefined();
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const child = spawn(process.execPath, [script], { cwd: dir, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes(`${port}`) && resolve());
        child.once('exit', () => reject(new Error(`${script} exited`)));
      });
      const response = await fetch(`http://127.0.0.1:${port}/`);
      expect(response.status).toBe(200);
      check(await response.text());
      expect((await fetch(`http://127.0.0.1:${port}/nope`)).status).toBe(404);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('a local folder source', () => {
  it('root-relative or absolute, read in place; the config is read on every call', async () => {
    await writeSource(join(ws.root, 'my-templates'));
    const reader = sources();
    await configure({ source: 'my-templates' });
    expect(await reader.read()).toEqual(expectedTemplates(join(ws.root, 'my-templates'), 'my-templates'));
    const outside = await mkdtemp(join(tmpdir(), 'wsapi-templates-'));
    try {
      await writeSource(outside);
      await configure({ source: outside });
      expect(await reader.read()).toEqual(expectedTemplates(outside, outside));
      await rm(join(ws.root, '.intentic/config/templates.json'));
      expect((await reader.read()).label).toBe('the shipped templates');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('sourceFolder: a dir of the source as its real path; missing, a file, or a link out of the source is PRECONDITION_FAILED', async () => {
    const dir = join(ws.root, 'my-templates');
    await writeSource(dir);
    await writeFile(join(dir, 'file'), 'x');
    await symlink(ws.root, join(dir, 'out'));
    await configure({ source: 'my-templates' });
    const source = await sources().read();
    expect(await sourceFolder(fs, source, 'apps/web')).toBe(join(dir, 'apps/web'));
    expect(await refusal(sourceFolder(fs, source, 'apps/nope'))).toEqual({
      code: 'precondition-failed',
      message: 'template source "my-templates" has no folder "apps/nope"',
    });
    expect(await refusal(sourceFolder(fs, source, 'file'))).toEqual({
      code: 'precondition-failed',
      message: 'template source "my-templates": "file" is not a folder',
    });
    expect(await refusal(sourceFolder(fs, source, 'out'))).toEqual({
      code: 'precondition-failed',
      message: 'template source "my-templates": "out" leads outside the source',
    });
  });
});

describe('unusable configs and sources are PRECONDITION_FAILED naming the problem', () => {
  const cases: Array<[string, () => Promise<void>, string]> = [
    ['a config that is not JSON', () => configure('{nope'), '.intentic/config/templates.json is not valid JSON'],
    ['a config `source` that is not a string', () => configure({ source: 3 }), '.intentic/config/templates.json: source: Invalid input: expected string, received number'],
    ['a source that is missing', () => configure({ source: 'nowhere' }), 'template source "nowhere" is not a folder'],
    [
      'a source without templates.json',
      async () => {
        await mkdir(join(ws.root, 'empty'));
        await configure({ source: 'empty' });
      },
      'template source "empty" has no templates.json',
    ],
    [
      'a templates.json that is not JSON',
      async () => {
        await writeSource(join(ws.root, 't'));
        await writeFile(join(ws.root, 't/templates.json'), 'nope');
        await configure({ source: 't' });
      },
      'template source "t": templates.json is not valid JSON',
    ],
    [
      'a template without a label, a dir escaping',
      async () => {
        await writeSource(join(ws.root, 't'), { shared: ['../x'], templates: { a: { description: 'd', instance: ['apps/a'] } } });
        await configure({ source: 't' });
      },
      'template source "t": templates.json: shared.0: "../x" is not a plain relative folder; templates.a.label: Invalid input: expected string, received undefined',
    ],
    [
      'a bad key',
      async () => {
        await writeSource(join(ws.root, 't'), { templates: { '-b': { label: 'B', description: 'd', instance: ['apps/-b'] } } });
        await configure({ source: 't' });
      },
      'template source "t": templates.json: templates.-b: "-b" is not a valid template key',
    ],
    [
      'a template with no instance dir ending in its key',
      async () => {
        await writeSource(join(ws.root, 't'), { templates: { b: { label: 'B', description: 'd', instance: ['apps/c', 'b/x'] } } });
        await configure({ source: 't' });
      },
      'template source "t": templates.json: templates.b.instance: no instance dir ends in "b"',
    ],
    ['a `ref` with a folder source', () => configure({ source: 'x', ref: 'main' }), '.intentic/config/templates.json: "ref" applies only to a git URL source'],
    ['a `ref` without a source', () => configure({ ref: 'main' }), '.intentic/config/templates.json: "ref" needs a git URL "source"'],
    ['a git URL without git', () => configure({ source: 'https://example.com/t.git' }), 'template source "https://example.com/t.git" is a git URL, and git is not available on this runtime'],
  ];
  it.each(cases)('%s', async (_name, arrange, message) => {
    await arrange();
    expect(await refusal(sources().read())).toEqual({ code: 'precondition-failed', message });
  });
});

describe('a git URL source', () => {
  let remotes: string;
  let server: GitHttpServer;
  beforeAll(async () => {
    // A bare repo: main holds the templates, `next` renames the web template's label.
    remotes = await mkdtemp(join(tmpdir(), 'wsapi-template-remotes-'));
    const work = join(remotes, 'work');
    execFileSync('git', ['init', '-q', '-b', 'main', work]);
    await writeSource(work);
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'templates');
    git(work, 'checkout', '-q', '-b', 'next');
    await writeFile(join(work, 'templates.json'), JSON.stringify({ ...MANIFEST, templates: { ...MANIFEST.templates, web: { ...MANIFEST.templates.web, label: 'Web (next)' } } }));
    git(work, 'commit', '-q', '-am', 'next');
    execFileSync('git', ['clone', '-q', '--bare', work, join(remotes, 'templates.git')]);
    server = await startGitHttpServer({ projectRoot: remotes });
  });
  afterAll(async () => {
    await server?.close();
    await rm(remotes, { recursive: true, force: true });
  });

  const gitSources = () => sources({ git: createGitProcess({ root: ws.root }) });
  const cacheEntries = async () => readdir(join(ws.root, '.intentic/cache/templates'));

  it('is cloned shallow at `main` into .intentic/cache/templates/<hash>, without .git, and reused without fetching', async () => {
    const url = `${server.url}/templates.git`;
    await configure({ source: url });
    const reader = gitSources();
    expect(await reader.keys()).toBeUndefined(); // listing apps never clones
    const source = await reader.read();
    const [entry, ...others] = await cacheEntries();
    expect(others).toEqual([]);
    expect(entry).toMatch(/^[0-9a-f]{20}$/);
    expect(source).toEqual(expectedTemplates(join(ws.root, '.intentic/cache/templates', entry!), url));
    expect(existsSync(join(source.dir, '.git'))).toBe(false);
    expect(existsSync(join(source.dir, 'apps/web/README.md'))).toBe(true);
    const requests = server.requests;
    expect(await gitSources().read()).toEqual(source);
    expect(await reader.keys()).toEqual(new Set(['api', 'web']));
    expect(server.requests).toBe(requests);
  });

  it('`ref` picks the branch (another cache entry); an unknown ref is PRECONDITION_FAILED and leaves nothing', async () => {
    const url = `${server.url}/templates.git`;
    await configure({ source: url, ref: 'next' });
    expect((await gitSources().read()).templates.map((t) => t.label)).toEqual(['API', 'Web (next)']);
    await configure({ source: url, ref: 'nope' });
    const failed = await refusal(gitSources().read());
    expect(failed.code).toBe('precondition-failed');
    expect(failed.message).toMatch(new RegExp(`^template source "${url}" at "nope" cannot be cloned: .*nope`));
    expect(await cacheEntries()).toHaveLength(1);
    await configure({ source: url, ref: 'a..b' });
    expect(await refusal(gitSources().read())).toEqual({ code: 'precondition-failed', message: '.intentic/config/templates.json: invalid ref "a..b"' });
  });

  it('a URL git may not use (file://) is PRECONDITION_FAILED before git runs', async () => {
    await configure({ source: `file://${remotes}/templates.git` });
    const failed = await refusal(gitSources().read());
    expect(failed).toEqual({
      code: 'precondition-failed',
      message: `template source "file://${remotes}/templates.git": unsupported clone URL: use https://, http://, ssh://, git:// or [user@]host:path (local paths, file:// and ext:: are refused)`,
    });
    expect(existsSync(join(ws.root, '.intentic/cache'))).toBe(false);
  });
});
