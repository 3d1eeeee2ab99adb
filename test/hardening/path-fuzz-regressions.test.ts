/**
 * What the hostile-path fuzzer found (test/hardening/path-fuzz.test.ts, `npm run soak -- fuzz-paths`), each as the
 * smallest request that showed it, fixed in the product.
 */
import { renameSync, symlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../adapters/fs/memory-file-system.ts';
import { GitFolderError, type GitRunner } from '../../core/git/git-runner.ts';
import { GitWorktreeAdapter } from '../../adapters/git/git-worktree-adapter.ts';
import { NodePtyAdapter } from '../../adapters/pty/node-pty-adapter.ts';
import { createWorkspaceApp, type WorkspaceApp } from '../../runtime/app.ts';
import { createNodeWorkspaceApp } from '../../runtime/node/node-workspace-app.ts';
import { nodeApp, request } from '../support/workspace.ts';

let app: WorkspaceApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

// Seed 1258118572, memory backend: `GET /workspace/health?repo=links` was 500 `internal error`. The scope resolved
// to a folder, but git could not start in it (the folder was not on the disk git runs on; on a disk, one removed
// between the scope check and git): core/health/churn.ts let the runner's GitFolderError through.
it('GET /workspace/health of a folder git cannot start in: no churn, not a 500', async () => {
  const fs = new MemoryFileSystem();
  await fs.write('/ws/links/a.txt', 'a\n', { mkdirs: true });
  // git as it answers when its working folder vanished before it started (adapters/git/git-process.ts).
  const git: GitRunner = { run: async (_args, { cwd }) => Promise.reject(new GitFolderError(cwd, 'missing')) };
  app = createWorkspaceApp({ fs, root: '/ws', auth: { token: 'test-token-0123456789' }, git });
  const response = await app.fetch(request('/workspace/health?repo=links'));
  const body = (await response.json()) as { repo?: string; hotspots?: unknown[] };
  expect([response.status, body.repo], JSON.stringify(body)).toEqual([200, 'links']);
  expect(body.hotspots).toEqual([]); // no churn: nothing is hot
});

// Seed 1618617415, memory backend: `GET /workspace/file?path=/ws\inside-abs-2/` was counted as an escape — the answer
// named `/ws\inside-abs-2/`, which reads as a sibling of the root `/ws`. It is the client's own path echoed back:
// Intentic's calls take `\` as a separator, so the path is `/ws/inside-abs-2/`, inside. Fixed in the fuzzer's judge
// (an echo of the sent path is not a path the daemon resolved); this pins that the daemon reads inside.
it('GET /workspace/file with backslashes after the root: read inside the root, the path echoed as sent', async () => {
  const fs = new MemoryFileSystem();
  await fs.write('/ws/inside/f.txt', 'inside\n', { mkdirs: true });
  await fs.write('/ws\\inside/f.txt', 'sibling\n', { mkdirs: true }).catch(() => {}); // a sibling folder whose name holds `\`
  app = createWorkspaceApp({ fs, root: '/ws', auth: { token: 'test-token-0123456789' } });
  const response = await app.fetch(request(`/workspace/file?path=${encodeURIComponent('/ws\\inside\\f.txt')}`));
  expect(await response.json()).toMatchObject({ present: true, path: '/ws\\inside\\f.txt', content: 'inside\n' });
});

// Seed 505837266, memory backend: `POST /workspace/agents {"agent":"sub"}` was 500 `internal error` on every valid
// id. The Node app asked git whether its root is a repository (for a worktree instead of a copy), in a folder that
// is not on the disk, and git could not start there (spawn ENOENT). The Node app gives git worktrees to a disk root
// only, and the adapter answers "no repository" for a folder that is not on the disk.
it('POST /workspace/agents on a Node app over the memory backend: a copy, not a 500', async () => {
  const fs = new MemoryFileSystem();
  await fs.write('/ws-memory-only/a.txt', 'a\n', { mkdirs: true });
  const nodeApp = createNodeWorkspaceApp({ root: '/ws-memory-only', fs, token: 'test-token-0123456789', watch: false, panel: false });
  app = nodeApp;
  const response = await app.fetch(
    request('/workspace/agents', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent: 'sub' }) }),
  );
  expect([response.status, await response.json()]).toEqual([200, { ok: true }]);
  expect(new TextDecoder().decode(await fs.read('/ws-memory-only/.agents/sub/a.txt'))).toBe('a\n');
  expect(await new GitWorktreeAdapter().repositoryOf('/ws-memory-only')).toBeUndefined();
});

// Seed 270861442, node backend, the folder `swapped` traded for a link out while requests ran: `POST /terminals
// {"cwd":"swapped"}` was 500 "could not start the terminal: permission-denied …" — the terminal adapter refused the
// working folder found outside (adapters/fs/node-confinement.ts), and the terminal manager made every start failure
// a 500. A refused folder is now the request's 403. (The same run's escape — git writing FETCH_HEAD in the outside
// repository through a link being replaced — is pinned in test/adapters/fs/working-folder.test.ts.)
it('POST /terminals in a folder traded for a link out between the check and the start: 403, nothing started', async () => {
  const container = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-trade-')));
  const root = join(container, 'ws');
  const outside = join(container, 'outside');
  await mkdir(join(root, 'swapped'), { recursive: true });
  await mkdir(outside);
  try {
    const ptys = new NodePtyAdapter({ within: root });
    // The trade lands after the route checked the folder, as the fuzzer's thread made it land.
    const trading = Object.create(ptys) as NodePtyAdapter;
    trading.spawn = (options) => {
      renameSync(join(root, 'swapped'), join(root, 'swapped-held'));
      symlinkSync(outside, join(root, 'swapped'));
      return ptys.spawn(options);
    };
    app = nodeApp(root, { pty: trading });
    const response = await app.fetch(
      request('/terminals', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 't1', cwd: 'swapped' }) }),
    );
    expect([response.status, await response.json()]).toEqual([403, { error: 'permission denied' }]);
    expect(app.terminals!.list()).toEqual([]);
    expect(await readdir(outside)).toEqual([]);
  } finally {
    await rm(container, { recursive: true, force: true });
  }
});
