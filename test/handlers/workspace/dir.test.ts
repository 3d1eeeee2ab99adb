import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, createFixture, failure, type Fixture, type Seed } from '../../support/backends.ts';
import { emptyFieldFailure } from '../../support/intentic-contract.ts';

const seed: Seed = {
  'a.txt': 'A',
  'src/app.ts': 'app',
  'linked/': '',
  'to-linked': { link: 'linked' },
  dangling: { link: 'nowhere' },
  escape: { link: '$OUTSIDE' },
};
const seeded = {
  'a.txt': 'A',
  dangling: '-> nowhere',
  escape: expect.stringMatching(/^-> .*-outside$/),
  linked: '<dir>',
  src: '<dir>',
  'src/app.ts': 'app',
  'to-linked': '-> linked',
};

describe.each(BACKENDS)('POST /workspace/dir (%s)', (backend) => {
  let b: Fixture;
  afterEach(() => b.cleanup());
  const setup = async () => (b = await createFixture(backend, seed));

  it('makes the folder and every missing parent', async () => {
    await setup();
    expect(await b.client.workspace.mkdir({ path: 'new/deep/er' })).toEqual({ ok: true });
    expect(await b.tree()).toEqual({ ...seeded, new: '<dir>', 'new/deep': '<dir>', 'new/deep/er': '<dir>' });
  });

  it('answers ok for a folder that already exists (mkdir -p), and changes nothing', async () => {
    await setup();
    for (const path of ['src', 'src/', '.', 'to-linked']) {
      expect(await b.client.workspace.mkdir({ path }), path).toEqual({ ok: true });
    }
    // "" names nothing: the contract declares the path non-empty.
    expect(await failure(b.client.workspace.mkdir({ path: '' }))).toEqual(emptyFieldFailure('body', 'path'));
    expect(await b.tree()).toEqual(seeded);
  });

  it('follows a link on the way, as any write does', async () => {
    await setup();
    expect(await b.client.workspace.mkdir({ path: 'to-linked/inner' })).toEqual({ ok: true });
    expect(await b.tree()).toEqual({ ...seeded, 'linked/inner': '<dir>' });
  });

  it('resolves a dangling link on the way to where it points, as a write through it would land', async () => {
    await setup();
    expect(await b.client.workspace.mkdir({ path: 'dangling/sub' })).toEqual({ ok: true });
    expect(await b.tree()).toEqual({ ...seeded, nowhere: '<dir>', 'nowhere/sub': '<dir>' });
  });

  it('is CONFLICT for a file at the path or above it, and makes nothing', async () => {
    await setup();
    const cases: Array<[string, string]> = [
      ['a.txt', 'a.txt'],
      ['src/app.ts', 'src/app.ts'],
      ['a.txt/sub/deeper', 'a.txt'],
      ['src/app.ts/x', 'src/app.ts'],
    ];
    for (const [path, inTheWay] of cases) {
      expect(await failure(b.client.workspace.mkdir({ path })), path).toEqual({
        code: 'CONFLICT',
        status: 409,
        message: `not a folder: ${inTheWay}`,
        data: undefined,
      });
    }
    expect(await b.tree()).toEqual(seeded);
  });

  it('is BAD_REQUEST for a path that escapes the workspace, and touches nothing inside or outside', async () => {
    await setup();
    for (const path of ['../made', '..', `${b.outside}/made`, 'escape', 'escape/made', 'src/../../made', '/']) {
      expect(await failure(b.client.workspace.mkdir({ path })), path).toEqual({
        code: 'BAD_REQUEST',
        status: 400,
        message: 'path is outside the workspace',
        data: undefined,
      });
    }
    expect(await b.tree()).toEqual(seeded);
    expect(await b.outsideTree()).toEqual({ 'secret.txt': 'secret' });
  });

  it('is BAD_REQUEST inside the agents folder (not part of the workspace tree)', async () => {
    await setup();
    for (const path of ['.agents', '.agents/bob', 'src/../.agents/bob/x']) {
      expect(await failure(b.client.workspace.mkdir({ path })), path).toEqual({
        code: 'BAD_REQUEST',
        status: 400,
        message: `not part of the workspace tree (the agents folder): ${path}`,
        data: undefined,
      });
    }
    expect(await b.tree()).toEqual(seeded);
  });

  it('is BAD_REQUEST for a NUL byte', async () => {
    await setup();
    expect(await failure(b.client.workspace.mkdir({ path: 'bad\0name' }))).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'path contains a NUL byte',
      data: undefined,
    });
    expect(await b.tree()).toEqual(seeded);
  });

  it('is BAD_REQUEST with the zod issues for a body that does not fit the schema', async () => {
    await setup();
    const call = b.client.workspace.mkdir({ path: 42 } as unknown as { path: string });
    expect(await failure(call)).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid body: path: path must be a string',
      data: { issues: [{ path: ['path'], message: 'path must be a string', code: 'invalid_type' }] },
    });
    const missing = b.client.workspace.mkdir({} as { path: string });
    expect((await failure(missing)).message).toBe('invalid body: path: path must be a string');
    expect(await b.tree()).toEqual(seeded);
  });

  it('is PAYLOAD_TOO_LARGE for a body over the cap, making nothing', async () => {
    b = await createFixture(backend, seed, { limits: { maxBodyBytes: 64 } });
    expect(await failure(b.client.workspace.mkdir({ path: 'x'.repeat(100) }))).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      status: 413,
      message: 'request body exceeds 64 bytes',
      data: undefined,
    });
    expect(await b.tree()).toEqual(seeded);
  });

  it('is NOT_FOUND for an unknown agent and BAD_REQUEST for a malformed id, making nothing', async () => {
    await setup();
    expect(await failure(b.client.workspace.mkdir({ path: 'x', agent: 'nobody' }))).toEqual({
      code: 'NOT_FOUND',
      status: 404,
      message: 'unknown agent: nobody',
      data: undefined,
    });
    expect(await failure(b.client.workspace.mkdir({ path: 'x', agent: '../evil' }))).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid body: agent: agent must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$',
      data: { issues: [{ path: ['agent'], message: 'agent must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$', code: 'invalid_format' }] },
    });
    expect(await b.tree()).toEqual(seeded);
  });
});
