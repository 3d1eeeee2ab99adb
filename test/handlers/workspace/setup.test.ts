/**
 * `GET /workspace/setup` through Intentic's client over real folders: recipes, states (with a PATH of our own
 * making for needs-setup vs unsupported) and what the walk never reaches; and, end to end over a real pty and real
 * `npm install`s held at a gate the test opens, `installing` while an install (or an add-apps job's) runs.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeCommandLookup } from '../../../adapters/process/node-command-lookup.ts';
import { createProjectModel } from '../../../core/projects/create-project-model.ts';
import { workspaceSetup } from '../../../handlers/workspace/setup.ts';
import type { WorkspaceContext } from '../../../runtime/context.ts';
import { createWorkspaceApp } from '../../../runtime/app.ts';
import { intenticClient } from '../../support/intentic-contract.ts';
import { GATED_PREINSTALL, heldAtGate, OFFLINE_NPMRC, openGate, useJobApp } from '../../support/job-app.ts';
import { waitFor } from '../../support/processes.ts';
import { nodeApp, request, tempWorkspace, TEST_TOKEN, type TempWorkspace } from '../../support/workspace.ts';

const pkg = (manifest: Record<string, unknown>) => JSON.stringify(manifest);

/** A PATH folder holding exactly `pnpm` and `python3` (empty scripts). */
let bin: string;
beforeAll(async () => {
  bin = await mkdtemp(join(tmpdir(), 'wsapi-setup-bin-'));
  for (const name of ['pnpm', 'python3']) {
    await writeFile(join(bin, name), '#!/bin/sh\n');
    await chmod(join(bin, name), 0o755);
  }
});
afterAll(() => rm(bin, { recursive: true, force: true }));

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

async function seed(files: Record<string, string>, folders: string[] = []): Promise<string> {
  ws = await tempWorkspace(files);
  for (const folder of folders) await mkdir(join(ws.root, folder), { recursive: true });
  return ws.root;
}
const setupOf = (root: string) => intenticClient(nodeApp(root, { commands: new NodeCommandLookup({ env: { PATH: bin } }) })).workspace.setup({});

describe('GET /workspace/setup', () => {
  it('reports each project with its recipe and state, sorted by dir', async () => {
    const root = await seed(
      {
        // pnpm monorepo, `**` and `!` members; one missing name in the root, two in members
        'mono/package.json': pkg({ name: 'mono', packageManager: 'pnpm@9.12.0', devDependencies: { typescript: '5', turbo: '2' } }),
        'mono/pnpm-workspace.yaml': 'packages:\n  - "packages/**"\n  - "!packages/legacy/**"\n',
        'mono/packages/ui/package.json': pkg({ name: 'ui', dependencies: { react: '18', clsx: '2' } }),
        'mono/packages/deep/core/package.json': pkg({ name: 'core', dependencies: { zod: '4' } }),
        'mono/packages/legacy/old/package.json': pkg({ name: 'old', dependencies: { jquery: '1' } }),
        'mono/node_modules/typescript/package.json': '{}',
        'mono/node_modules/react/package.json': '{}',
        // npm workspaces object form, everything resolved
        'npmws/package.json': pkg({ name: 'npmws', workspaces: { packages: ['apps/*'] }, dependencies: { a: '1' } }),
        'npmws/package-lock.json': '{}',
        'npmws/apps/x/package.json': pkg({ name: 'x', devDependencies: { b: '1' } }),
        'npmws/node_modules/a/index.js': '',
        'npmws/apps/x/node_modules/b/index.js': '',
        // declares nothing: ready with no node_modules
        'group/plain/package.json': pkg({ name: 'plain', scripts: { dev: 'node server.js' } }),
        // needs-setup (pnpm on PATH) vs unsupported (yarn, bun, uv not on PATH)
        'group/fresh/package.json': pkg({ dependencies: { a: '1' } }),
        'group/fresh/pnpm-lock.yaml': '',
        'yarnapp/package.json': pkg({ dependencies: { a: '1' } }),
        'yarnapp/yarn.lock': '',
        'bunapp/package.json': pkg({ dependencies: { a: '1' } }),
        'bunapp/bun.lockb': '',
        'py/requirements.txt': 'flask\n',
        'pyuv/pyproject.toml': '[project]\nname = "x"\n',
        'pyready/poetry.lock': '',
        'pyready/.venv/pyvenv.cfg': '',
        // never projects
        '.intentic/config/package.json': pkg({ dependencies: { a: '1' } }),
        '.hidden/package.json': pkg({}),
        'group/sub/too-deep/package.json': pkg({}),
      },
      ['mono/packages/deep/core/node_modules'], // a member's own (empty) node_modules: zod is missing
    );
    expect(await setupOf(root)).toEqual({
      projects: [
        { dir: 'bunapp', ecosystem: 'node', manager: 'bun', command: 'bun install', evidence: 'bun.lockb', state: 'unsupported' },
        { dir: 'group/fresh', ecosystem: 'node', manager: 'pnpm', command: 'pnpm install', evidence: 'pnpm-lock.yaml', state: 'needs-setup' },
        { dir: 'group/plain', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package.json (no lockfile)', state: 'ready' },
        {
          dir: 'mono',
          ecosystem: 'node',
          manager: 'pnpm',
          command: 'pnpm install',
          evidence: 'the packageManager field',
          state: 'stale',
          missing: 3, // turbo (root), clsx (ui), zod (core); legacy/old is excluded
        },
        { dir: 'npmws', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package-lock.json', state: 'ready' },
        {
          dir: 'py',
          ecosystem: 'python',
          manager: 'python3',
          command: 'python3 -m venv .venv && .venv/bin/pip install -r requirements.txt',
          evidence: 'requirements.txt',
          state: 'needs-setup',
        },
        { dir: 'pyready', ecosystem: 'python', manager: 'poetry', command: 'poetry install', evidence: 'poetry.lock', state: 'ready' },
        { dir: 'pyuv', ecosystem: 'python', manager: 'uv', command: 'uv sync', evidence: 'pyproject.toml', state: 'unsupported' },
        { dir: 'yarnapp', ecosystem: 'node', manager: 'yarn', command: 'yarn install', evidence: 'yarn.lock', state: 'unsupported' },
      ],
    });
  });

  it('stale turns ready once node_modules/<name> exists (a new app: the model re-reads what changed on disk)', async () => {
    const root = await seed({ 'app/package.json': pkg({ dependencies: { left: '1', '@s/right': '1' } }), 'app/node_modules/left/index.js': '' });
    expect(await setupOf(root)).toEqual({
      projects: [{ dir: 'app', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package.json (no lockfile)', state: 'stale', missing: 1 }],
    });
    await mkdir(join(root, 'app/node_modules/@s/right'), { recursive: true });
    expect(await setupOf(root)).toEqual({
      projects: [{ dir: 'app', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package.json (no lockfile)', state: 'ready' }],
    });
  });

  it('install state is read at each call, even on one app (node_modules is not watched)', async () => {
    const root = await seed({ 'app/package.json': pkg({ dependencies: { dep: '1' } }), 'app/pnpm-lock.yaml': '' });
    const client = intenticClient(nodeApp(root, { commands: new NodeCommandLookup({ env: { PATH: bin } }) }));
    expect((await client.workspace.setup({})).projects.map((project) => project.state)).toEqual(['needs-setup']);
    await mkdir(join(root, 'app/node_modules'));
    expect((await client.workspace.setup({})).projects.map((project) => [project.state, project.missing])).toEqual([['stale', 1]]);
    await mkdir(join(root, 'app/node_modules/dep'));
    expect((await client.workspace.setup({})).projects.map((project) => project.state)).toEqual(['ready']);
  });

  it('a root package.json makes the workspace the one project ""; links out of the workspace are never followed', async () => {
    const root = await seed({ 'sub/package.json': pkg({}) });
    const outside = await mkdtemp(join(tmpdir(), 'wsapi-setup-outside-'));
    try {
      await writeFile(join(outside, 'package.json'), pkg({ dependencies: { a: '1' } }));
      await symlink(outside, join(root, 'linked'));
      expect((await setupOf(root)).projects.map((project) => project.dir)).toEqual(['sub']);
      await writeFile(join(root, 'package.json'), pkg({ workspaces: ['linked', 'sub'] }));
      expect(await setupOf(root)).toEqual({
        projects: [{ dir: '', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package.json (no lockfile)', state: 'ready' }],
      });
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('works on the memory backend; without a command lookup no manager is on PATH', async () => {
    const fs = new MemoryFileSystem();
    const files = { '/ws/a/package.json': pkg({ dependencies: { x: '1' } }), '/ws/b/uv.lock': '', '/ws/c/package.json': pkg({}) };
    for (const [path, text] of Object.entries(files)) await fs.write(path, text, { mkdirs: true });
    const app = createWorkspaceApp({ fs, root: '/ws', auth: { token: TEST_TOKEN } });
    expect((await intenticClient(app).workspace.setup({})).projects.map(({ dir, state }) => ({ dir, state }))).toEqual([
      { dir: 'a', state: 'unsupported' },
      { dir: 'b', state: 'unsupported' },
      { dir: 'c', state: 'ready' },
    ]);
  });

  it('`installing` comes from the job engine, before anything the tree says', async () => {
    // The job engine is another helper's; its `isInstalling` is all setup reads, so it is stood in for here.
    const fs = new MemoryFileSystem();
    await fs.write('/ws/a/package.json', pkg({ dependencies: { x: '1' } }), { mkdirs: true });
    await fs.write('/ws/b/package.json', pkg({}), { mkdirs: true });
    const ctx = {
      projects: createProjectModel({ fs, root: '/ws' }),
      jobs: { isInstalling: (dir: string) => dir === 'a' },
    } as unknown as WorkspaceContext;
    const response = await workspaceSetup(request('/workspace/setup'), ctx);
    expect(await response.json()).toEqual({
      projects: [
        { dir: 'a', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package.json (no lockfile)', state: 'installing' },
        { dir: 'b', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package.json (no lockfile)', state: 'ready' },
      ],
    });
  });
});

describe('`installing` of an add-apps job, end to end', () => {
  // (Setup's `installing` during POST /workspace/setup/install: test/handlers/workspace/install.test.ts.)
  const jobs = useJobApp(
    {
      'lib/package.json': pkg({ name: 'lib', version: '1.0.0' }),
      'shop/package.json': pkg({ name: 'shop', private: true, workspaces: ['apps/*'], scripts: { preinstall: GATED_PREINSTALL }, dependencies: { lib: 'file:../lib' } }),
      'shop/.npmrc': OFFLINE_NPMRC,
    },
    { templatesDir: fileURLToPath(new URL('../../../templates', import.meta.url)) },
  );
  const project = async (dir: string) => (await jobs.client.setup({})).projects.find((found) => found.dir === dir);
  const npm = (dir: string, evidence: string, state: string) => ({ dir, ecosystem: 'node', manager: 'npm', command: 'npm install', evidence, state });
  /**
   * Setup's evidence for the held project, as the disk has it: the model reads the tree again after the job's
   * copies and after each install, and npm writes a workspace root's lockfile before running its preinstall.
   */
  const evidenceOf = (dir: string) => (existsSync(join(jobs.root, dir, 'package-lock.json')) ? 'package-lock.json' : 'package.json (no lockfile)');

  it("an add-apps job's install queues behind the project's running install, in its install terminal, installing all along", async () => {
    expect(await project('shop')).toEqual(npm('shop', 'package.json (no lockfile)', 'needs-setup'));
    expect(await jobs.client.install({ dirs: ['shop'] })).toEqual({ queued: ['shop'] });
    await heldAtGate(jobs.root);
    const first = jobs.terminal('panel-shop--install')!;
    expect(await jobs.client.addApps({ repo: 'shop', apps: [{ template: 'node-service', name: 'api' }] })).toEqual({ ok: true });
    const job = jobs.terminal('panel-shop--add_apps')!;
    await job.waitForOutput('waiting for the install running in panel-shop--install…', { timeoutMs: 15_000 });
    expect(await project('shop')).toEqual(npm('shop', evidenceOf('shop'), 'installing'));

    // The first install ends; the job's install starts in the same terminal name, and setup still says installing.
    await openGate(jobs.root);
    expect((await first.exited).code).toBe(0);
    await heldAtGate(jobs.root);
    const second = jobs.terminal('panel-shop--install')!;
    expect(second).not.toBe(first);
    expect(second.info()).toMatchObject({ command: 'npm install', cwd: join(jobs.root, 'shop'), running: true });
    expect(await project('shop')).toEqual(npm('shop', evidenceOf('shop'), 'installing'));
    expect(job.running).toBe(true);

    await openGate(jobs.root);
    expect((await job.exited).code).toBe(0);
    expect((await second.exited).code).toBe(0);
    const lines = job.text().split('\r\n');
    expect(lines.slice(0, 4)).toEqual(['Adding api (node-service)…', 'added api to shop', '$ npm install', 'waiting for the install running in panel-shop--install…']);
    expect(lines.slice(4).join('\r\n')).toBe(second.text()); // the install's output, mirrored as it came
    expect(second.text()).toContain('gate-opened');
    await waitFor(async () => (await project('shop'))?.state !== 'installing', { timeoutMs: 15_000, what: 'shop no longer installing' });
    expect(await project('shop')).toEqual(npm('shop', 'package-lock.json', 'ready'));
    expect(await readlink(join(jobs.root, 'shop/node_modules/@app/api'))).toBe('../../apps/api');
  });
});
