import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../../runtime/worker-build.ts';
import { waitFor } from '../../support/processes.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

/**
 * The daemon compiled to JavaScript (`npm run build`: tsc with tsconfig.build.json) runs with plain `node`, no
 * TypeScript loader: the CLI listens, answers, and its worker threads (search) start from their compiled entries
 * (adapters/search/start-ts-worker.ts). The first step towards a package; its `dist/` lives under the
 * project so the compiled files resolve the project's node_modules.
 */

const OUT = 'dist/test-build';
let workspace: TempWorkspace;
let cli: ChildProcess | undefined;

beforeAll(async () => {
  await rm(join(projectRoot, OUT), { recursive: true, force: true });
  await promisify(execFile)(process.execPath, [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', OUT], { cwd: projectRoot });
  workspace = await tempWorkspace({ 'notes/todo.md': 'remember the built daemon\n' });
}, 120_000);

afterAll(async () => {
  if (cli && cli.exitCode === null) {
    const exited = new Promise((resolve) => cli!.once('exit', resolve));
    cli.kill('SIGTERM');
    await exited;
  }
  await workspace?.cleanup();
});

describe('the compiled daemon', () => {
  it('runs with plain node: listens, serves files, and searches on its worker threads', async () => {
    let stdout = '';
    cli = spawn(process.execPath, [join(OUT, 'runtime/node/cli.js'), '--cwd', workspace.root, '--port', '0', '--token', 'built', '--no-panel', '--no-index'], {
      cwd: projectRoot,
      env: { ...process.env, SHELL: '/bin/sh' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cli.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const base = await waitFor(() => /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout)?.[1], { timeoutMs: 20_000, what: 'the listening line' });
    const headers = { authorization: 'Bearer built' };

    const listed = await fetch(`${base}/workspace/children?path=notes`, { headers });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ entries: [{ name: 'todo.md', type: 'file' }] });

    const found = await fetch(`${base}/workspace/search?query=built%20daemon&mode=find&literal=true`, { headers });
    expect(found.status).toBe(200);
    expect(await found.json()).toMatchObject({ total: 1, groups: [{ path: 'notes/todo.md', hits: [{ line: 1, text: 'remember the built daemon' }] }] });

    cli.kill('SIGTERM');
    expect(await new Promise((resolve) => cli!.once('exit', (code) => resolve(code)))).toBe(0);
  });
});
