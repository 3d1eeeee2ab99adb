import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, makeFifo, type Seed } from '../../support/backends.ts';
import { failed, ok, rpcFiles, type RpcFiles } from './files-fixture.ts';

const LATIN1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1: not UTF-8
const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10]);

const seed: Seed = {
  'a.txt': 'alpha\n',
  'unicode.md': '﻿héllo 🌍\r\n',
  'latin1.txt': LATIN1,
  'nul.txt': 'text\0more',
  'image.png': BINARY,
  'empty.txt': '',
  'src/app.ts': 'app',
  'to-a': { link: 'a.txt' },
  'to-src': { link: 'src' },
  dangling: { link: 'nowhere.txt' },
  escape: { link: '$OUTSIDE' },
  'escape-file': { link: '$OUTSIDE/secret.txt' },
};

const base64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

describe.each(BACKENDS)('/ws file reads and writes (%s)', (backend) => {
  let f: RpcFiles;
  afterEach(() => f.cleanup());
  const setup = async (limits = {}) => (f = await rpcFiles(backend, seed, limits));


  describe('read_file', () => {
    it('answers the text, by absolute or root-relative path, a byte order mark and CRLF kept', async () => {
      await setup();
      expect(await f.reply('read_file', { path: f.at('a.txt') })).toEqual(ok('alpha\n'));
      expect(await f.reply('read_file', { path: 'unicode.md' })).toEqual(ok('﻿héllo 🌍\r\n'));
      expect(await f.reply('read_file', { path: 'empty.txt' })).toEqual(ok(''));
      expect(await f.reply('read_file', { path: 'to-a' })).toEqual(ok('alpha\n'));
      expect(await f.reply('read_file', { path: 'to-src/app.ts' })).toEqual(ok('app'));
    });

    it('refuses bytes that are not UTF-8 text (never mojibake)', async () => {
      await setup();
      expect(await f.reply('read_file', { path: 'latin1.txt' })).toEqual(
        failed('Not a UTF-8 text file: latin1.txt (read_file_base64 reads any file)'),
      );
      expect(await f.reply('read_file', { path: 'nul.txt' })).toEqual(
        failed('Not a UTF-8 text file: nul.txt (read_file_base64 reads any file)'),
      );
      expect(await f.reply('read_file', { path: 'image.png' })).toEqual(
        failed('Not a UTF-8 text file: image.png (read_file_base64 reads any file)'),
      );
    });

    it('says `Path does not exist` for a missing path, a dangling link and a path below a file', async () => {
      await setup();
      expect(await f.reply('read_file', { path: 'missing.txt' })).toEqual(failed('Path does not exist'));
      expect(await f.reply('read_file', { path: f.at('src/missing.ts') })).toEqual(failed('Path does not exist'));
      expect(await f.reply('read_file', { path: 'dangling' })).toEqual(failed('Path does not exist'));
      expect(await f.reply('read_file', { path: 'a.txt/x' })).toEqual(failed('Path does not exist'));
    });

    it('refuses a folder', async () => {
      await setup();
      expect(await f.reply('read_file', { path: 'src' })).toEqual(failed('Is a folder, not a file: src'));
      expect(await f.reply('read_file', { path: '' })).toEqual(failed('Is a folder, not a file: '));
    });
  });

  if (backend === 'node') {
    it('refuses a FIFO without blocking on it', async () => {
      await setup();
      makeFifo(f.at('pipe'));
      for (const command of ['read_file', 'read_file_base64', 'download_file']) {
        expect(await f.reply(command, { path: 'pipe' })).toEqual(failed('Not a regular file: pipe'));
      }
    });
  }

  describe('read_file_base64 and download_file', () => {
    it('answer any file as padded base64', async () => {
      await setup();
      for (const command of ['read_file_base64', 'download_file']) {
        expect(await f.reply(command, { path: 'image.png' })).toEqual(ok(base64(BINARY)));
        expect(await f.reply(command, { path: f.at('latin1.txt') })).toEqual(ok('Y2Fm6Q=='));
        expect(await f.reply(command, { path: 'empty.txt' })).toEqual(ok(''));
        expect(await f.reply(command, { path: 'to-a' })).toEqual(ok(base64('alpha\n')));
        expect(await f.reply(command, { path: 'missing.bin' })).toEqual(failed('Path does not exist'));
        expect(await f.reply(command, { path: 'src' })).toEqual(failed('Is a folder, not a file: src'));
      }
    });
  });

  it('caps whole-file answers at rpcMaxFileBytes, naming the size and the cap', async () => {
    await setup({ rpcMaxFileBytes: 6 });
    // a.txt is exactly 6 bytes: at the cap is fine.
    expect(await f.reply('read_file', { path: 'a.txt' })).toEqual(ok('alpha\n'));
    expect(await f.reply('read_file', { path: 'image.png' })).toEqual(
      failed('File too large: image.png is 7 bytes; read_file answers files up to 6 bytes'),
    );
    expect(await f.reply('read_file_base64', { path: 'image.png' })).toEqual(
      failed('File too large: image.png is 7 bytes; read_file_base64 answers files up to 6 bytes'),
    );
    expect(await f.reply('download_file', { path: 'unicode.md' })).toEqual(
      failed('File too large: unicode.md is 16 bytes; download_file answers files up to 6 bytes'),
    );
  });

  describe('write_file', () => {
    it('creates a file and its missing folders, and replaces one, as UTF-8', async () => {
      await setup();
      expect(await f.reply('write_file', { path: f.at('new/deep/n.txt'), content: 'né 🌍' })).toEqual(ok(null));
      expect(await f.reply('write_file', { path: 'a.txt', content: 'replaced' })).toEqual(ok(null));
      expect(await f.reply('write_file', { path: 'empty.txt', content: '' })).toEqual(ok(null));
      const tree = await f.tree();
      expect(tree['new/deep/n.txt']).toBe('né 🌍');
      expect(tree.new).toBe('<dir>');
      expect(tree['a.txt']).toBe('replaced');
      expect(await f.reply('read_file', { path: 'new/deep/n.txt' })).toEqual(ok('né 🌍'));
    });

    it('writes through a link inside the workspace to its target; the link stays a link', async () => {
      await setup();
      expect(await f.reply('write_file', { path: 'to-a', content: 'via link' })).toEqual(ok(null));
      const tree = await f.tree();
      expect(tree['a.txt']).toBe('via link');
      expect(tree['to-a']).toBe('-> a.txt');
    });

    it('refuses a folder, a path below a file and a path ending in a slash, writing nothing', async () => {
      await setup();
      await f.unchanged(async () => {
        expect(await f.reply('write_file', { path: 'src', content: 'x' })).toEqual(failed('Is a folder, not a file: src'));
        expect(await f.reply('write_file', { path: 'a.txt/b.txt', content: 'x' })).toEqual(
          failed('A parent of a.txt/b.txt is a file, not a folder'),
        );
        expect(await f.reply('write_file', { path: 'fresh/', content: 'x' })).toEqual(
          failed('Not a file path (it ends with a slash): fresh/'),
        );
      });
    });

    it('refuses the agents folder', async () => {
      await setup();
      await f.unchanged(async () => {
        expect(await f.reply('write_file', { path: '.agents/x.txt', content: 'x' })).toEqual(
          failed('not part of the workspace tree (the agents folder): .agents/x.txt'),
        );
      });
    });
  });

  describe('upload_file', () => {
    it('writes the decoded bytes exactly, padded or not', async () => {
      await setup();
      expect(await f.reply('upload_file', { path: 'up/image.png', content: base64(BINARY) })).toEqual(ok(null));
      expect(await f.reply('upload_file', { path: 'two.bin', content: 'AAE' })).toEqual(ok(null));
      expect(await f.reply('read_file_base64', { path: 'up/image.png' })).toEqual(ok(base64(BINARY)));
      expect(await f.reply('read_file_base64', { path: 'two.bin' })).toEqual(ok('AAE='));
    });

    it('refuses bad base64 with `Invalid base64: …` and writes nothing', async () => {
      await setup();
      await f.unchanged(async () => {
        expect(await f.reply('upload_file', { path: 'bad.bin', content: 'AAE=AAE=' })).toEqual(
          failed("Invalid base64: unexpected '=' before the end at offset 3"),
        );
        expect(await f.reply('upload_file', { path: 'a.txt', content: 'not base64!' })).toEqual(
          failed('Invalid base64: unexpected character " " at offset 3'),
        );
        expect(await f.reply('upload_file', { path: 'bad.bin', content: 'QUJD\n' })).toEqual(
          failed('Invalid base64: unexpected character "\\n" at offset 4'),
        );
      });
    });
  });

  describe('create_file', () => {
    it('creates a file with the content, or empty without it (a mistyped `content` counts as absent)', async () => {
      await setup();
      expect(await f.reply('create_file', { path: 'c/with.txt', content: 'hi' })).toEqual(ok(null));
      expect(await f.reply('create_file', { path: 'without.txt' })).toEqual(ok(null));
      expect(await f.reply('create_file', { path: 'mistyped.txt', content: 42 })).toEqual(ok(null));
      const tree = await f.tree();
      expect([tree['c/with.txt'], tree['without.txt'], tree['mistyped.txt']]).toEqual(['hi', '', '']);
    });

    it('says `File already exists` for a file, a folder or a dangling link at the path, leaving it as it was', async () => {
      await setup();
      await f.unchanged(async () => {
        for (const path of ['a.txt', f.at('a.txt'), 'src', 'dangling', 'to-a']) {
          expect(await f.reply('create_file', { path, content: 'new' }), path).toEqual(failed('File already exists'));
        }
      });
    });
  });

  describe('file_exists', () => {
    it('is true for files, folders and links to them; false for missing paths, dangling links and link loops', async () => {
      f = await rpcFiles(backend, { ...seed, 'loop-a': { link: 'loop-b' }, 'loop-b': { link: 'loop-a' } });
      const answers: Record<string, boolean> = {};
      for (const path of ['a.txt', f.at('src'), '', 'to-a', 'to-src', 'missing', 'src/missing.ts', 'a.txt/x', 'dangling', 'loop-a', 'loop-a/x']) {
        const reply = await f.reply('file_exists', { path });
        expect(reply.ok, path).toBe(true);
        answers[path] = reply.result as boolean;
      }
      expect(answers).toEqual({
        'a.txt': true,
        [f.at('src')]: true,
        '': true,
        'to-a': true,
        'to-src': true,
        missing: false,
        'src/missing.ts': false,
        'a.txt/x': false,
        dangling: false,
        'loop-a': false,
        'loop-a/x': false,
      });
    });
  });

  describe('paths outside the workspace', () => {
    it('are refused by every read and write, with nothing touched on either side', async () => {
      await setup();
      const escapes = ['../x.txt', `${f.outside}/secret.txt`, 'escape/secret.txt', 'escape-file', '/etc/passwd'];
      await f.unchanged(async () => {
        for (const path of escapes) {
          for (const [command, args] of [
            ['read_file', { path }],
            ['read_file_base64', { path }],
            ['download_file', { path }],
            ['file_exists', { path }],
            ['write_file', { path, content: 'pwned' }],
            ['upload_file', { path, content: 'cHduZWQ=' }],
            ['create_file', { path, content: 'pwned' }],
          ] as const) {
            // create_file acts on the entry itself: the link `escape-file` is inside, and is something already there.
            const expected = command === 'create_file' && path === 'escape-file' ? 'File already exists' : 'path is outside the workspace';
            expect(await f.reply(command, args), `${command} ${path}`).toEqual(failed(expected));
          }
        }
      });
    });
  });

  describe('arguments', () => {
    it('a missing or mistyped required argument is `invalid arg`, and nothing is written', async () => {
      await setup();
      await f.unchanged(async () => {
        expect(await f.reply('read_file', {})).toEqual(failed("invalid arg 'path': missing"));
        expect(await f.reply('read_file')).toEqual(failed("invalid arg 'path': missing"));
        expect(await f.reply('read_file_base64', { path: 7 })).toEqual(failed("invalid arg 'path': expected string, got number"));
        expect(await f.reply('download_file', { path: null })).toEqual(failed("invalid arg 'path': expected string, got null"));
        expect(await f.reply('file_exists', { path: ['a.txt'] })).toEqual(failed("invalid arg 'path': expected string, got array"));
        expect(await f.reply('write_file', { path: 'w.txt' })).toEqual(failed("invalid arg 'content': missing"));
        expect(await f.reply('write_file', { path: 'w.txt', content: { text: 'x' } })).toEqual(
          failed("invalid arg 'content': expected string, got object"),
        );
        expect(await f.reply('upload_file', { content: 'AAE=' })).toEqual(failed("invalid arg 'path': missing"));
        expect(await f.reply('create_file', { path: true })).toEqual(failed("invalid arg 'path': expected string, got boolean"));
      });
    });
  });
});
