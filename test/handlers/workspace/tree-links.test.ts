/**
 * `/workspace/tree` and `/workspace/children` over real symlinks on disk (docs/intentic.md#tree): a link to a
 * folder inside the root is a `dir` with `link.to` verbatim and is walked like any folder, under the same
 * budget; a link back to an ancestor (the root included) or to a folder already walked is listed, not
 * entered; a link out of the root is `state: "outside"` and never followed; a dangling one a broken file.
 * `children` of a linked folder's path lists its contents, presented under that path.
 */
import { symlink } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { intenticClient, type TreeEntry } from '../../support/intentic-contract.ts';
import { appOver, buildTree, type BuiltTree } from '../../support/backends.ts';

const file = (path: string, size: number, extra: Partial<TreeEntry> = {}): TreeEntry => ({
  name: path.slice(path.lastIndexOf('/') + 1), path, type: 'file', size, ...extra,
});
const dir = (path: string, extra: Partial<TreeEntry> = {}): TreeEntry => ({
  name: path.slice(path.lastIndexOf('/') + 1), path, type: 'dir', ...extra,
});

describe('links on disk in /workspace/tree and /workspace/children', () => {
  let built: BuiltTree;
  afterEach(() => built.cleanup());

  /** The workspace: `real/` and `zreal/` folders, and every kind of link, made with real symlink(2) calls. */
  async function linked(budget?: number) {
    built = await buildTree('node', { 'real/a.txt': 'aa', 'real/inner/deep.txt': 'd', 'zreal/z.txt': 'z' });
    const { root, outside } = built;
    const links: Array<[string, string]> = [
      ['abs', `${root}/zreal`], // absolute text, to a folder inside
      ['rel', 'real/inner'], // relative text, to a folder inside
      ['chain2', 'chain1'], // a chain: chain2 → chain1 → zreal
      ['chain1', 'zreal'],
      ['self', '.'], // the root itself, relative…
      ['self-abs', root], // …and absolute
      ['real/back', '..'], // a cycle: back to an ancestor
      ['real/inner/up', '../../real'], // a cycle two levels up
      ['out', outside], // out of the root
      ['out-rel', '../' + outside.slice(outside.lastIndexOf('/') + 1)],
      ['dangling', 'nope/x'],
    ];
    for (const [at, to] of links) await symlink(to, `${root}/${at}`);
    return intenticClient(appOver(built, budget === undefined ? {} : { limits: { maxTreeEntries: budget } }));
  }

  it('walks links to folders inside, lists cycles and outside links without entering them', async () => {
    const client = await linked();
    const { root } = built;
    const inner = (at: string) => [dir(`${at}/up`, { link: { to: '../../real' } }), file(`${at}/deep.txt`, 1)];
    expect(await client.workspace.tree({})).toEqual({
      root,
      tree: [
        // First in walk order: opened, its contents listed under the link's path.
        dir('abs', { link: { to: `${root}/zreal` }, children: [file('abs/z.txt', 1)] }),
        // zreal was walked through abs: a chain to it is listed, not entered again.
        dir('chain1', { link: { to: 'zreal' } }),
        dir('chain2', { link: { to: 'chain1' } }),
        dir('out', { link: { to: built.outside, state: 'outside' } }),
        dir('out-rel', { link: { to: '../' + built.outside.slice(built.outside.lastIndexOf('/') + 1), state: 'outside' } }),
        dir('real', {
          children: [
            dir('real/back', { link: { to: '..' } }),
            dir('real/inner', { children: inner('real/inner') }),
            file('real/a.txt', 2),
          ],
        }),
        dir('rel', { link: { to: 'real/inner' }, children: inner('rel') }),
        dir('self', { link: { to: '.' } }),
        dir('self-abs', { link: { to: root } }),
        // A real folder is where its files live: opened even though a link showed it first.
        dir('zreal', { children: [file('zreal/z.txt', 1)] }),
        { name: 'dangling', path: 'dangling', type: 'file', link: { to: 'nope/x', state: 'broken' } },
      ],
      hidden: 0,
    });
  });

  it('walks a linked folder under the same budget: one that does not fit stays closed', async () => {
    // 11 root entries, 2 left: abs (1 entry) opens; real (3) and rel (2) do not fit the 1 left; zreal (1) does.
    const client = await linked(13);
    const { tree } = await client.workspace.tree({});
    const opened = tree.filter((entry) => entry.children !== undefined).map((entry) => entry.path);
    expect(opened).toEqual(['abs', 'zreal']);
  });

  it('lists a linked folder’s contents with children, by the link’s path, down a chain and through a cycle', async () => {
    const client = await linked();
    const { root } = built;
    const zreal = (at: string) => ({ entries: [file(`${at}/z.txt`, 1)], hidden: 0 });
    expect(await client.workspace.children({ path: 'abs' })).toEqual(zreal('abs'));
    expect(await client.workspace.children({ path: 'chain2' })).toEqual(zreal('chain2'));
    expect(await client.workspace.children({ path: 'rel' })).toEqual({
      entries: [dir('rel/up', { link: { to: '../../real' } }), file('rel/deep.txt', 1)],
      hidden: 0,
    });
    // Opening a cycle one level at a time is the client's choice: it lists the folder it leads to.
    expect(await client.workspace.children({ path: 'rel/up' })).toEqual({
      entries: [dir('rel/up/back', { link: { to: '..' } }), dir('rel/up/inner'), file('rel/up/a.txt', 2)],
      hidden: 0,
    });
    expect((await client.workspace.children({ path: 'self' })).entries.map((e) => e.path)).toContain('self/real');
    expect((await client.workspace.children({ path: 'self-abs/real/back' })).entries.map((e) => e.name)).toContain('zreal');
    expect(await client.workspace.children({ path: `${root}/abs` })).toEqual(zreal('abs'));
    // Out of the root: nothing, never followed.
    expect(await client.workspace.children({ path: 'out' })).toEqual({ entries: [], hidden: 0 });
    expect(await client.workspace.children({ path: 'out-rel' })).toEqual({ entries: [], hidden: 0 });
  });
});
