import { afterEach, describe, expect, it } from 'vitest';
import { orpcError } from '../../support/intentic-contract.ts';
import { request, q } from '../../support/workspace.ts';
import { BACKENDS, createFixture, type Fixture } from '../../support/backends.ts';
import { SseFrames } from '../../support/sse-frames.ts';

const seed = {
  'README.md': 'shared readme\n',
  'src/app.ts': 'export const app = 1;\n',
  'node_modules/pkg/index.js': 'module.exports = 1;\n',
  '.gitignore': 'dist/\n',
  'dist/bundle.js': 'built\n',
};

/** What the Intentic client saw when the call failed. */
async function failure(call: Promise<unknown>) {
  const error = await orpcError(call);
  return { code: error.code, status: error.status, message: error.message };
}

describe.each(BACKENDS)('/workspace/agents through the Intentic client (%s)', (backend) => {
  let b: Fixture;
  afterEach(() => b.cleanup());

  async function upload(agent: string | undefined, path: string, body: string): Promise<Response> {
    return b.app.fetch(request(`/workspace/upload${q(agent ? { path, agent } : { path })}`, { method: 'POST', body }));
  }

  it('creates a copy once: a second create is CONFLICT, in an oRPC error body', async () => {
    b = await createFixture(backend, seed);
    const { workspace } = b.client;
    expect(await workspace.createAgent({ agent: 'a1' })).toEqual({ ok: true });
    expect(await failure(workspace.createAgent({ agent: 'a1' }))).toEqual({
      code: 'CONFLICT',
      status: 409,
      message: 'agent already exists: a1',
    });
    const raw = await b.app.fetch(
      request('/workspace/agents', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"agent":"a1"}' }),
    );
    expect(raw.status).toBe(409);
    expect(await raw.json()).toEqual({ defined: false, code: 'CONFLICT', status: 409, message: 'agent already exists: a1' });
    // A plain copy (no git here): what tooling ignores is left to the shared tree, and so is the agents folder.
    const tree = await b.tree();
    expect(Object.keys(tree).filter((path) => path.startsWith('.agents/a1')).sort()).toEqual([
      '.agents/a1',
      '.agents/a1/.gitignore',
      '.agents/a1/README.md',
      '.agents/a1/src',
      '.agents/a1/src/app.ts',
    ]);
    expect(JSON.parse(tree['.agents/.state/a1.json']!)).toEqual({ kind: 'copy', base: '' });
  });

  it("reads with agent see the agent's own edits, the shared tree does not; paths the copy lacks fall back", async () => {
    b = await createFixture(backend, seed);
    const { workspace } = b.client;
    await workspace.createAgent({ agent: 'a1' });
    expect((await upload('a1', 'README.md', 'agent readme\n')).status).toBe(200);
    expect(await workspace.file({ agent: 'a1', path: 'README.md' })).toEqual({
      present: true,
      path: 'README.md',
      content: 'agent readme\n',
      size: 13,
      offset: 0,
      bytes: 13,
      shared: false,
    });
    expect(await workspace.file({ path: 'README.md' })).toMatchObject({ content: 'shared readme\n', shared: true });
    expect((await b.tree())['README.md']).toBe('shared readme\n');
    // Not copied (ignored): served from the shared tree.
    expect(await workspace.file({ agent: 'a1', path: 'node_modules/pkg/index.js' })).toMatchObject({
      present: true,
      content: 'module.exports = 1;\n',
      shared: true,
    });
    expect(await workspace.file({ agent: 'a1', path: 'dist/bundle.js' })).toMatchObject({ content: 'built\n', shared: true });
    // Made in the shared tree after the copy: the agent sees it too, until it has its own.
    expect((await upload(undefined, 'late.txt', 'late\n')).status).toBe(200);
    expect(await workspace.file({ agent: 'a1', path: 'late.txt' })).toMatchObject({ content: 'late\n', shared: true });
    expect(await workspace.file({ agent: 'a1', path: 'src/app.ts' })).toMatchObject({ shared: false });
  });

  it("an agent's delete removes the entry from its view only", async () => {
    b = await createFixture(backend, seed);
    const { workspace } = b.client;
    await workspace.createAgent({ agent: 'a1' });
    expect(await workspace.delete({ agent: 'a1', path: 'node_modules' })).toEqual({ ok: true });
    expect(await workspace.delete({ agent: 'a1', path: 'src/app.ts' })).toEqual({ ok: true });
    expect(await workspace.file({ agent: 'a1', path: 'node_modules/pkg/index.js' })).toEqual({
      present: false,
      path: 'node_modules/pkg/index.js',
    });
    expect(await workspace.file({ agent: 'a1', path: 'src/app.ts' })).toEqual({ present: false, path: 'src/app.ts' });
    expect(await workspace.file({ path: 'node_modules/pkg/index.js' })).toMatchObject({ present: true, shared: true });
    const tree = await b.tree();
    expect(tree['src/app.ts']).toBe('export const app = 1;\n');
    expect(JSON.parse(tree['.agents/.state/a1.whiteouts.json']!)).toEqual(['node_modules', 'src/app.ts']);
    expect(tree['.agents/a1/src']).toBe('<dir>');
    expect(tree['.agents/a1/src/app.ts']).toBeUndefined();
  });

  it('delete removes the copy; the agent is NOT_FOUND afterwards, for reads and a second delete', async () => {
    b = await createFixture(backend, seed);
    const { workspace } = b.client;
    await workspace.createAgent({ agent: 'a1' });
    await workspace.delete({ agent: 'a1', path: 'README.md' });
    expect(await workspace.deleteAgent({ agent: 'a1' })).toEqual({ ok: true });
    const gone = { code: 'NOT_FOUND', status: 404, message: 'unknown agent: a1' };
    expect(await failure(workspace.file({ agent: 'a1', path: 'README.md' }))).toEqual(gone);
    expect(await failure(workspace.tree({ agent: 'a1' }))).toEqual(gone);
    expect(await failure(workspace.deleteAgent({ agent: 'a1' }))).toEqual(gone);
    const tree = await b.tree();
    expect(Object.keys(tree).filter((path) => path.startsWith('.agents/') && path !== '.agents/.state')).toEqual([]);
    expect(tree['README.md']).toBe('shared readme\n');
    // The same id again is a fresh copy: nothing of the old agent's deletions survives.
    await workspace.createAgent({ agent: 'a1' });
    expect(await workspace.file({ agent: 'a1', path: 'README.md' })).toMatchObject({ content: 'shared readme\n', shared: false });
  });

  it('an unknown agent is NOT_FOUND naming it', async () => {
    b = await createFixture(backend, seed);
    const { workspace } = b.client;
    expect(await failure(workspace.file({ agent: 'nobody', path: 'README.md' }))).toEqual({
      code: 'NOT_FOUND',
      status: 404,
      message: 'unknown agent: nobody',
    });
    expect(await failure(workspace.deleteAgent({ agent: 'nobody' }))).toEqual({
      code: 'NOT_FOUND',
      status: 404,
      message: 'unknown agent: nobody',
    });
  });

  it('malformed ids are BAD_REQUEST, with the issue, and create nothing', async () => {
    b = await createFixture(backend, seed);
    const { workspace } = b.client;
    const message = 'invalid body: agent: agent must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$';
    for (const agent of ['-lead', '_x', 'a'.repeat(65), 'a/b', 'a.b', '', 'é']) {
      expect(await failure(workspace.createAgent({ agent })), agent).toEqual({ code: 'BAD_REQUEST', status: 400, message });
    }
    const raw = await b.app.fetch(
      request('/workspace/agents', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"agent":"-x"}' }),
    );
    expect(await raw.json()).toEqual({
      defined: false,
      code: 'BAD_REQUEST',
      status: 400,
      message,
      data: { issues: [{ path: ['agent'], message: 'agent must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$', code: 'invalid_format' }] },
    });
    expect(await failure(workspace.createAgent({ agent: 7 as unknown as string }))).toMatchObject({ code: 'BAD_REQUEST' });
    for (const agent of ['a b', '-x', 'a%2Fb', 'a'.repeat(65)]) {
      expect(await failure(workspace.deleteAgent({ agent })), agent).toEqual({
        code: 'BAD_REQUEST',
        status: 400,
        message: 'invalid path: agent: agent must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$',
      });
    }
    const badEscape = await b.app.fetch(request('/workspace/agents/%E0%A4%A', { method: 'DELETE' }));
    expect(badEscape.status).toBe(400);
    expect(await failure(workspace.file({ agent: '-x', path: 'README.md' }))).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(Object.keys(await b.tree()).filter((path) => path.startsWith('.agents'))).toEqual([]);
  });

  it('a plain copy above the copy caps is PAYLOAD_TOO_LARGE and leaves nothing', async () => {
    b = await createFixture(backend, seed, { limits: { maxCopyEntries: 3 } });
    expect(await failure(b.client.workspace.createAgent({ agent: 'big' }))).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      status: 413,
      message: 'the workspace is too large for an agent copy (more than 3 entries; ignored folders are not copied)',
    });
    const leftovers = Object.keys(await b.tree()).filter((path) => path.startsWith('.agents/') && path !== '.agents/.state');
    expect(leftovers).toEqual([]);
    expect(await failure(b.client.workspace.file({ agent: 'big', path: 'README.md' }))).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('/workspace/agents over a git repository (node, with the git worktree adapter)', () => {
  it('creates a worktree on branch agent/<id>, reads through it, and removes it', async () => {
    const { execFileSync } = await import('node:child_process');
    const { GitWorktreeAdapter } = await import('../../../adapters/git/git-worktree-adapter.ts');
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', args, {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' },
      }).trim();
    const b = await createFixture('node', { 'README.md': 'committed\n' }, { worktrees: new GitWorktreeAdapter() });
    try {
      git(b.root, 'init', '-q', '-b', 'main');
      git(b.root, 'add', '-A');
      git(b.root, 'commit', '-q', '-m', 'initial');
      const { workspace } = b.client;
      expect(await workspace.createAgent({ agent: 'w1' })).toEqual({ ok: true });
      expect(git(`${b.root}/.agents/w1`, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('agent/w1');
      expect(await workspace.file({ agent: 'w1', path: 'README.md' })).toMatchObject({ content: 'committed\n', shared: false });
      expect(await workspace.deleteAgent({ agent: 'w1' })).toEqual({ ok: true });
      expect(git(b.root, 'worktree', 'list', '--porcelain')).not.toContain('.agents/w1');
      expect(git(b.root, 'status', '--porcelain')).toBe('');
    } finally {
      await b.cleanup();
    }
  });
});

describe.each(BACKENDS)("GET /workspace-files/changes?agent= speaks the agent's view (%s)", (backend) => {
  it("reports the agent's writes at the overlaid path, and not the shared writes its own copy hides", async () => {
    const b = await createFixture(backend, seed);
    try {
      await b.client.workspace.createAgent({ agent: 'a1' });
      const response = await b.app.fetch(request(`/workspace-files/changes${q({ agent: 'a1' })}`));
      expect(response.status).toBe(200);
      const events = new SseFrames(response.body!);
      expect(await events.frame()).toEqual({ kind: 'ready' });
      // The shared README changes, but the agent has its own copy: nothing for this view.
      await b.app.fetch(request(`/workspace/upload${q({ path: 'README.md' })}`, { method: 'POST', body: 'shared edit\n' }));
      await b.app.fetch(request(`/workspace/upload${q({ path: 'src/app.ts', agent: 'a1' })}`, { method: 'POST', body: 'agent\n' }));
      const frame = await events.frame();
      expect(frame).toEqual({ kind: 'change', change: { absolutePath: `${b.root}/src/app.ts`, version: expect.any(String) } });
      const view = await b.client.workspace.file({ agent: 'a1', path: 'src/app.ts' });
      expect(view).toMatchObject({ content: 'agent\n', shared: false });
      await events.cancel();
    } finally {
      await b.cleanup();
    }
  });
});
