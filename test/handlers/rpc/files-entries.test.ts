import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, type Seed } from '../../support/backends.ts';
import { failed, ok, rpcFiles, type RpcFiles } from './files-fixture.ts';

const seed: Seed = {
  'a.txt': 'A',
  'b.txt': 'B',
  'src/app.ts': 'app',
  'src/lib/util.ts': 'util',
  'src/lib/empty/': '',
  'docs/': '',
  'to-a': { link: 'a.txt' },
  'to-src': { link: 'src' },
  dangling: { link: 'nowhere' },
  escape: { link: '$OUTSIDE' },
};
const seeded: Record<string, unknown> = {
  'a.txt': 'A',
  'b.txt': 'B',
  docs: '<dir>',
  escape: expect.stringMatching(/^-> .*-outside$/),
  src: '<dir>',
  'src/app.ts': 'app',
  'src/lib': '<dir>',
  'src/lib/empty': '<dir>',
  'src/lib/util.ts': 'util',
  'to-a': '-> a.txt',
  'to-src': '-> src',
  dangling: '-> nowhere',
};
const without = (...keys: string[]) => Object.fromEntries(Object.entries(seeded).filter(([k]) => !keys.some((key) => k === key || k.startsWith(key + '/'))));

describe.each(BACKENDS)('/ws entry commands (%s)', (backend) => {
  let f: RpcFiles;
  afterEach(() => f.cleanup());
  const setup = async (limits = {}) => (f = await rpcFiles(backend, seed, limits));


  describe('create_directory', () => {
    it('makes the folder and the missing ones above it', async () => {
      await setup();
      expect(await f.reply('create_directory', { path: f.at('new') })).toEqual(ok(null));
      expect(await f.reply('create_directory', { path: 'x/y/z' })).toEqual(ok(null));
      expect(await f.tree()).toEqual({ ...seeded, new: '<dir>', x: '<dir>', 'x/y': '<dir>', 'x/y/z': '<dir>' });
    });

    it('says `Folder already exists` for a folder, `File already exists` for a file or link, and changes nothing', async () => {
      await setup();
      await f.unchanged(async () => {
        expect(await f.reply('create_directory', { path: 'src' })).toEqual(failed('Folder already exists'));
        expect(await f.reply('create_directory', { path: f.at('src/lib/empty') })).toEqual(failed('Folder already exists'));
        expect(await f.reply('create_directory', { path: 'a.txt' })).toEqual(failed('File already exists'));
        // A link holds its name, whatever it points to: no folder is made at its target.
        expect(await f.reply('create_directory', { path: 'to-a' })).toEqual(failed('File already exists'));
        expect(await f.reply('create_directory', { path: 'to-src' })).toEqual(failed('File already exists'));
        expect(await f.reply('create_directory', { path: 'dangling' })).toEqual(failed('File already exists'));
        expect(await f.reply('create_directory', { path: '' })).toEqual(failed('cannot create a folder at the workspace root'));
      });
    });

    it('refuses a file in the way above, naming it', async () => {
      await setup();
      await f.unchanged(async () => {
        expect(await f.reply('create_directory', { path: 'a.txt/sub/deeper' })).toEqual(failed('not a folder: a.txt'));
      });
    });
  });

  describe('rename_entry', () => {
    it('renames a file, and moves a folder with everything in it into new folders', async () => {
      await setup();
      expect(await f.reply('rename_entry', { from: 'a.txt', to: f.at('a2.txt') })).toEqual(ok(null));
      expect(await f.reply('rename_entry', { from: f.at('src'), to: 'moved/here/src' })).toEqual(ok(null));
      expect(await f.tree()).toEqual({
        ...without('a.txt', 'src'),
        'a2.txt': 'A',
        moved: '<dir>',
        'moved/here': '<dir>',
        'moved/here/src': '<dir>',
        'moved/here/src/app.ts': 'app',
        'moved/here/src/lib': '<dir>',
        'moved/here/src/lib/empty': '<dir>',
        'moved/here/src/lib/util.ts': 'util',
      });
    });

    it('moves a link as a link, even one that points out of the workspace', async () => {
      await setup();
      expect(await f.reply('rename_entry', { from: 'to-a', to: 'docs/to-a' })).toEqual(ok(null));
      expect(await f.reply('rename_entry', { from: 'escape', to: 'docs/escape' })).toEqual(ok(null));
      const tree = await f.tree();
      expect(tree['docs/to-a']).toBe('-> a.txt');
      expect(tree['docs/escape']).toMatch(/^-> .*-outside$/);
      expect(tree['to-a']).toBeUndefined();
      expect(await f.outsideTree()).toEqual({ 'secret.txt': 'secret' });
    });

    it('says `Source does not exist` and `Target already exists`, and changes nothing', async () => {
      await setup();
      await f.unchanged(async () => {
        expect(await f.reply('rename_entry', { from: 'missing.txt', to: 'x.txt' })).toEqual(failed('Source does not exist'));
        expect(await f.reply('rename_entry', { from: 'missing/deep.txt', to: 'new/x.txt' })).toEqual(failed('Source does not exist'));
        expect(await f.reply('rename_entry', { from: 'a.txt', to: 'b.txt' })).toEqual(failed('Target already exists'));
        expect(await f.reply('rename_entry', { from: 'a.txt', to: 'docs' })).toEqual(failed('Target already exists'));
        expect(await f.reply('rename_entry', { from: 'src', to: 'to-a' })).toEqual(failed('Target already exists'));
      });
    });

    it('refuses onto itself, into its own subfolder, and the workspace root', async () => {
      await setup();
      await f.unchanged(async () => {
        expect(await f.reply('rename_entry', { from: 'a.txt', to: 'a.txt' })).toEqual(failed('cannot move a.txt onto itself'));
        expect(await f.reply('rename_entry', { from: 'src', to: 'src/lib/src' })).toEqual(
          failed('cannot move src into its own subfolder src/lib/src'),
        );
        expect(await f.reply('rename_entry', { from: '', to: 'elsewhere' })).toEqual(failed('cannot move the workspace root'));
      });
    });
  });

  describe('copy_entry', () => {
    it('copies a file and a folder recursively; the sources stay', async () => {
      await setup();
      expect(await f.reply('copy_entry', { from: 'a.txt', to: 'docs/a-copy.txt' })).toEqual(ok(null));
      expect(await f.reply('copy_entry', { from: f.at('src'), to: f.at('copy/src') })).toEqual(ok(null));
      expect(await f.tree()).toEqual({
        ...seeded,
        'docs/a-copy.txt': 'A',
        copy: '<dir>',
        'copy/src': '<dir>',
        'copy/src/app.ts': 'app',
        'copy/src/lib': '<dir>',
        'copy/src/lib/empty': '<dir>',
        'copy/src/lib/util.ts': 'util',
      });
    });

    it('says `Source does not exist` and `Target already exists`, and changes nothing', async () => {
      await setup();
      await f.unchanged(async () => {
        expect(await f.reply('copy_entry', { from: 'missing', to: 'x' })).toEqual(failed('Source does not exist'));
        expect(await f.reply('copy_entry', { from: 'src', to: 'docs' })).toEqual(failed('Target already exists'));
        expect(await f.reply('copy_entry', { from: 'a.txt', to: 'to-a' })).toEqual(failed('Target already exists'));
        expect(await f.reply('copy_entry', { from: 'src', to: 'src/inner' })).toEqual(
          failed('cannot copy src into its own subfolder src/inner'),
        );
      });
    });

    it('refuses a tree over the copy caps before writing anything', async () => {
      await setup({ maxCopyEntries: 4 });
      await f.unchanged(async () => {
        expect(await f.reply('copy_entry', { from: 'src', to: 'big' })).toEqual(
          failed('copy refused: src has more than 4 entries (the copy limit); nothing was copied'),
        );
      });
    });
  });

  describe('delete_entry', () => {
    it('deletes a file, a folder with everything in it, and a link without its target', async () => {
      await setup();
      expect(await f.reply('delete_entry', { path: 'b.txt' })).toEqual(ok(null));
      expect(await f.reply('delete_entry', { path: f.at('src') })).toEqual(ok(null));
      expect(await f.reply('delete_entry', { path: 'to-a' })).toEqual(ok(null));
      expect(await f.reply('delete_entry', { path: 'escape' })).toEqual(ok(null));
      expect(await f.tree()).toEqual(without('b.txt', 'src', 'to-a', 'escape'));
      expect(await f.outsideTree()).toEqual({ 'secret.txt': 'secret' });
    });

    it('says `Path does not exist` for a missing path, and refuses the workspace root', async () => {
      await setup();
      await f.unchanged(async () => {
        expect(await f.reply('delete_entry', { path: 'missing.txt' })).toEqual(failed('Path does not exist'));
        expect(await f.reply('delete_entry', { path: 'a.txt/below' })).toEqual(failed('Path does not exist'));
        expect(await f.reply('delete_entry', { path: '' })).toEqual(failed('cannot delete the workspace root'));
        expect(await f.reply('delete_entry', { path: f.root })).toEqual(failed('cannot delete the workspace root'));
      });
    });
  });

  it('refuses paths outside the workspace in every argument, with nothing touched on either side', async () => {
    await setup();
    const escapes = ['../x', `${f.outside}/secret.txt`, 'escape/secret.txt', '/tmp'];
    await f.unchanged(async () => {
      for (const path of escapes) {
        for (const [command, args] of [
          ['create_directory', { path: `${path}/new` }],
          ['delete_entry', { path }],
          ['rename_entry', { from: path, to: 'stolen' }],
          ['rename_entry', { from: 'a.txt', to: path }],
          ['copy_entry', { from: path, to: 'stolen' }],
          ['copy_entry', { from: 'a.txt', to: path }],
        ] as const) {
          expect(await f.reply(command, args), `${command} ${JSON.stringify(args)}`).toEqual(failed('path is outside the workspace'));
        }
      }
    });
  });

  it('refuses the agents folder as a source, a target and a place to create', async () => {
    await setup();
    expect(await f.reply('create_directory', { path: '.agents/mine' })).toEqual(
      failed('not part of the workspace tree (the agents folder): .agents/mine'),
    );
    expect(await f.reply('copy_entry', { from: 'a.txt', to: '.agents/a.txt' })).toEqual(
      failed('not part of the workspace tree (the agents folder): .agents/a.txt'),
    );
    expect(await f.tree()).toEqual(seeded);
  });

  it('checks arguments: missing or mistyped `from`, `to`, `path`', async () => {
    await setup();
    await f.unchanged(async () => {
      expect(await f.reply('rename_entry', { to: 'x' })).toEqual(failed("invalid arg 'from': missing"));
      expect(await f.reply('rename_entry', { from: 'a.txt' })).toEqual(failed("invalid arg 'to': missing"));
      expect(await f.reply('copy_entry', { from: 'a.txt', to: 3 })).toEqual(failed("invalid arg 'to': expected string, got number"));
      expect(await f.reply('delete_entry', {})).toEqual(failed("invalid arg 'path': missing"));
      expect(await f.reply('create_directory', { path: false })).toEqual(failed("invalid arg 'path': expected string, got boolean"));
    });
  });
});
