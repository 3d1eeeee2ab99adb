/**
 * The model's caches and what drops them (core/projects/create-project-model.ts): files are written straight to
 * the backend (no change reported), so an answer that follows them proves a drop, one that does not proves a cache.
 */
import { describe, expect, it } from 'vitest';
import { createChangeFeed } from '../../../core/changes/create-change-feed.ts';
import { createProjectModel } from '../../../core/projects/create-project-model.ts';
import { BACKENDS, treesFor } from '../../support/backends.ts';
import { handledFrames } from '../../support/handled-frames.ts';

const named = (name: string, extra: Record<string, unknown> = {}) => JSON.stringify({ name, ...extra });

describe.each(BACKENDS)('project model caches (%s)', (backend) => {
  const build = treesFor(backend);
  let version = 0;

  async function setup() {
    const t = await build({
      'a/package.json': named('a'),
      'mono/package.json': named('mono', { workspaces: ['packages/*'] }),
      'mono/packages/one/package.json': named('one'),
      'r/.git/HEAD': '',
    });
    const frames = handledFrames(createChangeFeed());
    const changes = frames.feed;
    const model = createProjectModel({ fs: t.fs, root: t.root, changes });
    /** Publishes a change and waits until the model's subscription has acted on it. */
    const publish = async (rel: string, absent = false) => {
      const absolutePath = `${t.root}/${rel}`;
      changes.publish(absent ? { absolutePath, absent: true } : { absolutePath, version: `v${++version}` });
      await frames.handled();
    };
    const dirs = async () => (await model.projects()).map((project) => project.dir);
    const members = async () => (await model.members(`${t.root}/mono`)).map((member) => member.name);
    const repos = async () => (await model.modules()).map((entry) => entry.repo);
    return { t, changes, frames, model, publish, dirs, members, repos };
  }

  it('a package.json change drops the project walk, the packages above it and the modules', async () => {
    const { t, publish, dirs, members, changes } = await setup();
    expect(await dirs()).toEqual(['a', 'mono']);
    expect(await members()).toEqual(['one']);
    await t.fs.write(`${t.root}/b/package.json`, named('b'), { mkdirs: true });
    await t.fs.write(`${t.root}/mono/packages/two/package.json`, named('two'), { mkdirs: true });
    await publish('src/notes.md'); // an unrelated file: nothing dropped
    await publish('a/node_modules/dep/package.json'); // installed packages: nothing dropped
    expect(await dirs()).toEqual(['a', 'mono']);
    expect(await members()).toEqual(['one']);
    await publish('b/package.json');
    expect(await dirs()).toEqual(['a', 'b', 'mono']);
    expect(await members()).toEqual(['one']); // b is not in mono
    await publish('mono/packages/two/package.json');
    expect(await members()).toEqual(['one', 'two']);
    await changes.close();
  });

  it('a folder added or removed, a lockfile, pnpm-workspace.yaml and `.git` drop what they touch; resync drops all', async () => {
    const { t, model, publish, dirs, members, repos, changes, frames } = await setup();
    expect(await dirs()).toEqual(['a', 'mono']);
    expect(await members()).toEqual(['one']);
    expect(await repos()).toEqual(['root', 'r']);

    await t.fs.write(`${t.root}/a/pnpm-lock.yaml`, '');
    await publish('a/pnpm-lock.yaml');
    expect((await model.projects())[0]!.manager).toBe('pnpm');

    await t.fs.remove(`${t.root}/mono/packages/one`, { recursive: true });
    await publish('mono/packages/one', true);
    expect(await members()).toEqual([]);

    await t.fs.write(`${t.root}/mono/libs/x/package.json`, named('x'), { mkdirs: true });
    await t.fs.write(`${t.root}/mono/pnpm-workspace.yaml`, 'packages:\n  - libs/*\n');
    await publish('mono/pnpm-workspace.yaml');
    expect(await members()).toEqual(['x']);

    await t.fs.mkdir(`${t.root}/s/.git`, { recursive: true });
    await publish('s/.git');
    expect(await repos()).toEqual(['root', 'r', 's']);

    await t.fs.write(`${t.root}/c/requirements.txt`, '', { mkdirs: true });
    await publish('c'); // a new folder
    expect(await dirs()).toEqual(['a', 'c', 'mono']);

    await t.fs.write(`${t.root}/d/uv.lock`, '', { mkdirs: true });
    changes.resync();
    await frames.handled();
    expect(await dirs()).toEqual(['a', 'c', 'd', 'mono']);

    await t.fs.write(`${t.root}/e/uv.lock`, '', { mkdirs: true });
    model.invalidate();
    expect(await dirs()).toEqual(['a', 'c', 'd', 'e', 'mono']);
    await changes.close();
  });
});
