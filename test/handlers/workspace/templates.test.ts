/**
 * `GET /workspace/templates` through Intentic's client: the shipped templates exactly, a local folder source, a git
 * URL source served over smart HTTP from a local bare repo, and an unusable source as PRECONDITION_FAILED.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGitProcess } from '../../../adapters/git/git-process.ts';
import type { WorkspaceApp } from '../../../runtime/app.ts';
import { startGitHttpServer, type GitHttpServer } from '../../support/git-http-server.ts';
import { intenticClient, orpcError } from '../../support/intentic-contract.ts';
import { nodeApp, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const SHIPPED = fileURLToPath(new URL('../../../templates', import.meta.url));

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' }).toString();

const manifest = (label: string) =>
  JSON.stringify({
    templates: {
      zeta: { label: 'Zeta', description: 'last by key', instance: ['apps/zeta'] },
      alpha: { label, description: 'first by key', instance: ['apps/alpha'] },
    },
  });

let ws: TempWorkspace;
let app: WorkspaceApp;
beforeEach(async () => {
  ws = await tempWorkspace({ '.intentic/config/.keep': '' });
  app = nodeApp(ws.root, { templatesDir: SHIPPED, git: createGitProcess({ root: ws.root }) });
});
afterEach(async () => {
  await app.close();
  await ws.cleanup();
});

const templates = () => intenticClient(app).workspace.templates({});
const configure = (config: unknown) => writeFile(join(ws.root, '.intentic/config/templates.json'), JSON.stringify(config));

describe('GET /workspace/templates', () => {
  it('without a config: the shipped templates, in key order', async () => {
    expect(await templates()).toEqual({
      templates: [
        { key: 'node-service', label: 'Node service', description: 'A plain Node.js HTTP service with no dependencies: answers GET / on $PORT.' },
        {
          key: 'static-site',
          label: 'Static site',
          description: 'An HTML and CSS site, served from its folder on $PORT by a tiny Node script with no dependencies.',
        },
      ],
    });
  });

  it('a local folder source (root-relative), read on every call', async () => {
    await mkdir(join(ws.root, 'tpl'));
    await writeFile(join(ws.root, 'tpl/templates.json'), manifest('Alpha'));
    await configure({ source: 'tpl' });
    expect(await templates()).toEqual({
      templates: [
        { key: 'alpha', label: 'Alpha', description: 'first by key' },
        { key: 'zeta', label: 'Zeta', description: 'last by key' },
      ],
    });
    await writeFile(join(ws.root, 'tpl/templates.json'), manifest('Alpha 2'));
    expect((await templates()).templates[0]).toEqual({ key: 'alpha', label: 'Alpha 2', description: 'first by key' });
  });

  describe('a git URL source', () => {
    let remotes: string;
    let server: GitHttpServer;
    beforeAll(async () => {
      remotes = await mkdtemp(join(tmpdir(), 'wsapi-templates-remote-'));
      const work = join(remotes, 'work');
      execFileSync('git', ['init', '-q', '-b', 'main', work]);
      await writeFile(join(work, 'templates.json'), manifest('Alpha from git'));
      git(work, 'add', '.');
      git(work, 'commit', '-q', '-m', 'templates');
      execFileSync('git', ['clone', '-q', '--bare', work, join(remotes, 'tpl.git')]);
      server = await startGitHttpServer({ projectRoot: remotes });
    });
    afterAll(async () => {
      await server?.close();
      await rm(remotes, { recursive: true, force: true });
    });

    it('is cloned at main and listed', async () => {
      await configure({ source: `${server.url}/tpl.git` });
      expect(await templates()).toEqual({
        templates: [
          { key: 'alpha', label: 'Alpha from git', description: 'first by key' },
          { key: 'zeta', label: 'Zeta', description: 'last by key' },
        ],
      });
    });
  });

  it('an unusable source is PRECONDITION_FAILED naming the problem', async () => {
    await configure({ source: 'missing-folder' });
    const error = await orpcError(templates());
    expect({ code: error.code, status: error.status, message: error.message }).toEqual({
      code: 'PRECONDITION_FAILED',
      status: 412,
      message: 'template source "missing-folder" is not a folder',
    });
  });
});
