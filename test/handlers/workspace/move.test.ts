import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, createFixture, failure, type Fixture, type Seed } from '../../support/backends.ts';
import { emptyFieldFailure } from '../../support/intentic-contract.ts';

const seed: Seed = {
  'a.txt': 'A',
  'b.txt': 'B',
  'src/app.ts': 'app',
  'src/lib/util.ts': 'util',
  'docs/': '',
  'to-src': { link: 'src' },
  'rel-link': { link: '../a.txt' },
  escape: { link: '$OUTSIDE' },
};
const seeded: Record<string, unknown> = {
  'a.txt': 'A',
  'b.txt': 'B',
  docs: '<dir>',
  escape: expect.stringMatching(/^-> .*-outside$/),
  'rel-link': '-> ../a.txt',
  src: '<dir>',
  'src/app.ts': 'app',
  'src/lib': '<dir>',
  'src/lib/util.ts': 'util',
  'to-src': '-> src',
};
const without = (...keys: string[]) => Object.fromEntries(Object.entries(seeded).filter(([k]) => !keys.includes(k)));

describe.each(BACKENDS)('POST /workspace/move (%s)', (backend) => {
  let b: Fixture;
  afterEach(() => b.cleanup());
  const setup = async () => (b = await createFixture(backend, seed));
  const error = (code: string, status: number, message: string) => ({ code, status, message, data: undefined });
  const bad = (message: string) => error('BAD_REQUEST', 400, message);

  it('renames a file in place', async () => {
    await setup();
    expect(await b.client.workspace.move({ from: 'a.txt', to: 'renamed.txt' })).toEqual({ ok: true });
    expect(await b.tree()).toEqual({ ...without('a.txt'), 'renamed.txt': 'A' });
  });

  it('moves a folder with everything in it into another folder', async () => {
    await setup();
    expect(await b.client.workspace.move({ from: 'src/lib', to: 'docs/lib' })).toEqual({ ok: true });
    expect(await b.tree()).toEqual({
      ...without('src/lib', 'src/lib/util.ts'),
      'docs/lib': '<dir>',
      'docs/lib/util.ts': 'util',
    });
  });

  it('makes the missing folders above the target', async () => {
    await setup();
    expect(await b.client.workspace.move({ from: 'b.txt', to: 'archive/2024/b.txt' })).toEqual({ ok: true });
    expect(await b.tree()).toEqual({
      ...without('b.txt'),
      archive: '<dir>',
      'archive/2024': '<dir>',
      'archive/2024/b.txt': 'B',
    });
  });

  it('moves a symlink itself, its text verbatim (even one that points out of the workspace)', async () => {
    await setup();
    expect(await b.client.workspace.move({ from: 'to-src', to: 'docs/to-src' })).toEqual({ ok: true });
    expect(await b.client.workspace.move({ from: 'escape', to: 'escape-2' })).toEqual({ ok: true });
    expect(await b.tree()).toEqual({
      ...without('to-src', 'escape'),
      'docs/to-src': '-> src',
      'escape-2': expect.stringMatching(/^-> .*-outside$/),
    });
    expect(await b.outsideTree()).toEqual({ 'secret.txt': 'secret' });
  });

  it('is BAD_REQUEST onto itself, in any spelling', async () => {
    await setup();
    for (const [from, to] of [['a.txt', 'a.txt'], ['src', 'src/'], ['src/lib', 'to-src/lib'], ['a.txt', `${b.root}/a.txt`]]) {
      expect(await failure(b.client.workspace.move({ from: from!, to: to! })), `${from} -> ${to}`).toEqual(
        bad(`cannot move ${from === 'src/lib' ? 'src/lib' : from} onto itself`),
      );
    }
    expect(await b.tree()).toEqual(seeded);
  });

  it('is BAD_REQUEST into its own subfolder, also through a link, and makes no folders', async () => {
    await setup();
    const cases: Array<[string, string, string]> = [
      ['src', 'src/lib/src', 'src/lib/src'],
      ['src', 'src/new/deep', 'src/new/deep'],
      ['src', 'to-src/inside', 'src/inside'],
    ];
    for (const [from, to, shown] of cases) {
      expect(await failure(b.client.workspace.move({ from, to })), to).toEqual(
        bad(`cannot move src into its own subfolder ${shown}`),
      );
    }
    expect(await b.tree()).toEqual(seeded);
  });

  it('is CONFLICT for a target that exists (file, folder or link): nothing is overwritten', async () => {
    await setup();
    for (const [from, to] of [['a.txt', 'b.txt'], ['a.txt', 'docs'], ['docs', 'src'], ['b.txt', 'to-src'], ['src/lib', 'src']]) {
      expect(await failure(b.client.workspace.move({ from: from!, to: to! })), `${from} -> ${to}`).toEqual(
        error('CONFLICT', 409, `target already exists: ${to}`),
      );
    }
    expect(await b.tree()).toEqual(seeded);
  });

  it('is CONFLICT when a file sits where a folder above the target must be, and makes nothing', async () => {
    await setup();
    expect(await failure(b.client.workspace.move({ from: 'b.txt', to: 'a.txt/b.txt' }))).toEqual(
      error('CONFLICT', 409, 'not a folder: a.txt'),
    );
    expect(await failure(b.client.workspace.move({ from: 'b.txt', to: 'src/app.ts/deeper/b.txt' }))).toEqual(
      error('CONFLICT', 409, 'not a folder: src/app.ts'),
    );
    expect(await b.tree()).toEqual(seeded);
  });

  it('is NOT_FOUND for a missing source', async () => {
    await setup();
    expect(await failure(b.client.workspace.move({ from: 'nope', to: 'x' }))).toEqual(
      error('NOT_FOUND', 404, 'source does not exist: nope'),
    );
    expect(await b.tree()).toEqual(seeded);
  });

  it('refuses the workspace root as source or target', async () => {
    await setup();
    expect(await failure(b.client.workspace.move({ from: '', to: 'moved' }))).toEqual(emptyFieldFailure('body', 'from'));
    expect(await failure(b.client.workspace.move({ from: 'a.txt', to: '' }))).toEqual(emptyFieldFailure('body', 'to'));
    for (const root of ['.', 'src/..', b.root]) {
      expect(await failure(b.client.workspace.move({ from: root, to: 'moved' }))).toEqual(bad('cannot move the workspace root'));
      expect(await failure(b.client.workspace.move({ from: 'a.txt', to: root }))).toEqual(
        bad('cannot move onto the workspace root'),
      );
    }
    expect(await b.tree()).toEqual(seeded);
  });

  it('refuses escaping sources and targets, touching nothing inside or outside', async () => {
    await setup();
    const outsideName = b.outside.split('/').pop()!;
    const cases: Array<[string, string]> = [
      [`../${outsideName}/secret.txt`, 'stolen.txt'],
      [`${b.outside}/secret.txt`, 'stolen.txt'],
      ['escape/secret.txt', 'stolen.txt'],
      ['a.txt', '../a.txt'],
      ['a.txt', `${b.outside}/a.txt`],
      ['a.txt', 'escape/a.txt'],
      ['src', '..'],
    ];
    for (const [from, to] of cases) {
      expect(await failure(b.client.workspace.move({ from, to })), `${from} -> ${to}`).toEqual(
        bad('path is outside the workspace'),
      );
    }
    expect(await b.tree()).toEqual(seeded);
    expect(await b.outsideTree()).toEqual({ 'secret.txt': 'secret' });
  });

  it('refuses the agents folder as source or target', async () => {
    await setup();
    expect(await failure(b.client.workspace.move({ from: 'a.txt', to: '.agents/bob/a.txt' }))).toEqual(
      bad('not part of the workspace tree (the agents folder): .agents/bob/a.txt'),
    );
    expect(await failure(b.client.workspace.move({ from: '.agents', to: 'agents' }))).toEqual(
      bad('not part of the workspace tree (the agents folder): .agents'),
    );
    expect(await b.tree()).toEqual(seeded);
  });

  it('answers BAD_REQUEST with zod issues for a malformed body, and NOT_FOUND for an unknown agent', async () => {
    await setup();
    const call = b.client.workspace.move({ from: 'a.txt' } as { from: string; to: string });
    expect(await failure(call)).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid body: to: to must be a string',
      data: { issues: [{ path: ['to'], message: 'to must be a string', code: 'invalid_type' }] },
    });
    expect(await failure(b.client.workspace.move({ from: 'a.txt', to: 'z.txt', agent: 'dave' }))).toEqual(
      error('NOT_FOUND', 404, 'unknown agent: dave'),
    );
    expect(await b.tree()).toEqual(seeded);
  });
});
