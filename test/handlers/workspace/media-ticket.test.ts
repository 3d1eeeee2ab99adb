import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { intenticClient } from '../../support/intentic-contract.ts';
import { BACKENDS, createFixture, failure, makeFifo, type Fixture, type Seed } from '../../support/backends.ts';

const HOUR = 60 * 60 * 1000;
const seed: Seed = {
  'clip.mp4': 'video bytes',
  'media/song.mp3': 'audio bytes',
  'alias.mp4': { link: 'clip.mp4' },
  escape: { link: '$OUTSIDE/secret.txt' },
  dangling: { link: 'nowhere.mp4' },
};

describe.each(BACKENDS)('POST /workspace/media-ticket (%s), through the Intentic client', (backend) => {
  let b: Fixture;
  afterEach(() => b.cleanup());
  const setup = async (options = {}) => (b = await createFixture(backend, seed, options));

  it('mints {ticket, expiresAt}: the expiry one hour from now by default, in ms since the epoch', async () => {
    await setup();
    const before = Date.now();
    const minted = await b.client.workspace.mediaTicket({ path: 'clip.mp4' });
    const after = Date.now();
    expect(minted).toEqual({ ticket: expect.stringMatching(/^\d+\.[A-Za-z0-9_-]{43}$/), expiresAt: expect.any(Number) });
    expect(minted.expiresAt).toBeGreaterThanOrEqual(before + HOUR);
    expect(minted.expiresAt).toBeLessThanOrEqual(after + HOUR);
  });

  it('lives limits.mediaTicketTtlMs (--media-ticket-ttl)', async () => {
    await setup({ limits: { mediaTicketTtlMs: 90_000 } });
    const before = Date.now();
    const { expiresAt } = await b.client.workspace.mediaTicket({ path: 'media/song.mp3' });
    expect(expiresAt - before).toBeGreaterThanOrEqual(90_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(90_000);
  });

  it('mints for a file reached through a link inside the workspace', async () => {
    await setup();
    expect(await b.client.workspace.mediaTicket({ path: 'alias.mp4' })).toEqual({
      ticket: expect.any(String),
      expiresAt: expect.any(Number),
    });
  });

  it('a missing file is NOT_FOUND (a dangling link too, and a path under a file)', async () => {
    await setup();
    for (const path of ['nope.mp4', 'media/nope.mp3', 'dangling', 'clip.mp4/inner']) {
      expect(await failure(b.client.workspace.mediaTicket({ path })), path).toEqual({
        code: 'NOT_FOUND',
        status: 404,
        message: `no such file: ${path}`,
        data: undefined,
      });
    }
  });

  it('a folder is BAD_REQUEST, the root included', async () => {
    await setup();
    for (const path of ['media', 'media/', '.', b.root]) {
      expect(await failure(b.client.workspace.mediaTicket({ path })), path).toEqual({
        code: 'BAD_REQUEST',
        status: 400,
        message: `path is a directory: ${path}`,
        data: undefined,
      });
    }
  });

  it('a path that escapes the workspace is BAD_REQUEST, by .. or by a link', async () => {
    await setup();
    for (const path of ['../secret.txt', `${b.outside}/secret.txt`, 'escape', 'media/../../x']) {
      expect(await failure(b.client.workspace.mediaTicket({ path })), path).toEqual({
        code: 'BAD_REQUEST',
        status: 400,
        message: 'path is outside the workspace',
        data: undefined,
      });
    }
  });

  it('a missing or empty path is BAD_REQUEST with the zod issues as data', async () => {
    await setup();
    expect(await failure(b.client.workspace.mediaTicket({ path: '' }))).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid body: path: missing path',
      data: { issues: [{ path: ['path'], message: 'missing path', code: 'too_small' }] },
    });
    const noPath = await b.app.fetch(
      new Request('http://localhost/workspace/media-ticket', {
        method: 'POST',
        headers: { 'x-intentic-control': 'test-token-0123456789', 'content-type': 'application/json' },
        body: '{}',
      }),
    );
    expect(noPath.status).toBe(400);
    expect(await noPath.json()).toEqual({
      defined: false,
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid body: path: missing path',
      data: { issues: [{ path: ['path'], message: 'missing path', code: 'invalid_type' }] },
    });
  });

  it('a malformed agent id is BAD_REQUEST, an unknown agent NOT_FOUND', async () => {
    await setup();
    expect(await failure(b.client.workspace.mediaTicket({ path: 'clip.mp4', agent: 'no/slash' }))).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid body: agent: agent must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$',
      data: { issues: [{ path: ['agent'], message: 'agent must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$', code: 'invalid_format' }] },
    });
    expect(await failure(b.client.workspace.mediaTicket({ path: 'clip.mp4', agent: 'nobody' }))).toEqual({
      code: 'NOT_FOUND',
      status: 404,
      message: 'unknown agent: nobody',
      data: undefined,
    });
  });

  it('needs the token (it is the ticket that later stands in for it)', async () => {
    await setup();
    for (const token of [null, 'wrong']) {
      expect(await failure(intenticClient(b.app, { token }).workspace.mediaTicket({ path: 'clip.mp4' }))).toEqual({
        code: 'UNAUTHORIZED',
        status: 401,
        message: 'missing or invalid token',
        data: undefined,
      });
    }
  });
});

describe('POST /workspace/media-ticket (node): special files', () => {
  let b: Fixture;
  afterEach(() => b.cleanup());

  it('a FIFO is BAD_REQUEST, and minting does not open it', async () => {
    b = await createFixture('node', {});
    makeFifo(join(b.root, 'pipe.mp4'));
    expect(await failure(b.client.workspace.mediaTicket({ path: 'pipe.mp4' }))).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'not a regular file: pipe.mp4',
      data: undefined,
    });
  });
});
