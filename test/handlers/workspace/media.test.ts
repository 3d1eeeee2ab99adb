import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMediaTickets } from '../../../core/media/media-tickets.ts';
import { startNodeServer, type NodeServer } from '../../../runtime/node/server.ts';
import { q, TEST_TOKEN } from '../../support/workspace.ts';
import { BACKENDS, createFixture, type Fixture, type Seed } from '../../support/backends.ts';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';
const KEY = Uint8Array.from({ length: 32 }, (_, i) => 200 - i);
const HOUR = 60 * 60 * 1000;

const seed: Seed = {
  'clip.mp4': ALPHABET,
  'song.MP3': 'ID3 sound',
  'notes.xyz': 'not media',
  'empty.webm': '',
  'média/vidéo ünï.mp4': 'unicode',
  'my "best" clip.mp4': 'quoted',
  'alias.mp4': { link: 'clip.mp4' },
  'folder/inner.mp4': 'inner',
  escape: { link: '$OUTSIDE/secret.txt' },
};

const textOf = async (res: Response) => new TextDecoder().decode(await res.arrayBuffer());

describe.each(BACKENDS)('GET|HEAD /workspace/media (%s)', (backend) => {
  let b: Fixture;
  afterEach(() => b.cleanup());
  const setup = async (options = {}) => (b = await createFixture(backend, seed, { mediaTicketKey: KEY, ...options }));

  const ticketFor = async (path: string) => (await b.client.workspace.mediaTicket({ path })).ticket;
  /** A media element's request: no token, no auth header of any kind. */
  const media = (params: Record<string, string>, headers: Record<string, string> = {}, method = 'GET') =>
    b.app.fetch(new Request(new URL('/workspace/media' + q(params), 'http://localhost'), { method, headers }));

  it('streams the whole file with the ticket alone: type by extension, ranges offered, no-store, nosniff', async () => {
    await setup();
    const res = await media({ path: 'clip.mp4', ticket: await ticketFor('clip.mp4') });
    expect(res.status).toBe(200);
    expect(Object.fromEntries(res.headers)).toEqual({
      'accept-ranges': 'bytes',
      'cache-control': 'no-store',
      'content-length': '26',
      'content-type': 'video/mp4',
      etag: expect.stringMatching(/^"[^"]+"$/),
      'last-modified': expect.stringMatching(/ GMT$/),
      'x-content-type-options': 'nosniff',
      'content-security-policy': 'sandbox allow-scripts',
    });
    expect(await textOf(res)).toBe(ALPHABET);
  });

  it('types by extension only, case-insensitively, and anything unlisted as application/octet-stream', async () => {
    await setup();
    const song = await media({ path: 'song.MP3', ticket: await ticketFor('song.MP3') });
    expect(song.headers.get('content-type')).toBe('audio/mpeg');
    expect(await textOf(song)).toBe('ID3 sound');
    const other = await media({ path: 'notes.xyz', ticket: await ticketFor('notes.xyz') });
    expect(other.headers.get('content-type')).toBe('application/octet-stream');
    expect(await textOf(other)).toBe('not media');
  });

  it('a single range is 206 with Content-Range and exactly those bytes', async () => {
    await setup();
    const ticket = await ticketFor('clip.mp4');
    const res = await media({ path: 'clip.mp4', ticket }, { range: 'bytes=2-5' });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('bytes 2-5/26');
    expect(res.headers.get('content-length')).toBe('4');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await textOf(res)).toBe('cdef');
    const tail = await media({ path: 'clip.mp4', ticket }, { range: 'bytes=-3' });
    expect([tail.status, tail.headers.get('content-range'), await textOf(tail)]).toEqual([206, 'bytes 23-25/26', 'xyz']);
    const open = await media({ path: 'clip.mp4', ticket }, { range: 'bytes=20-' });
    expect([open.status, open.headers.get('content-range'), await textOf(open)]).toEqual([206, 'bytes 20-25/26', 'uvwxyz']);
  });

  it('several ranges are one multipart/byteranges body with an exact Content-Length', async () => {
    await setup();
    const res = await media({ path: 'clip.mp4', ticket: await ticketFor('clip.mp4') }, { range: 'bytes=0-1,24-' });
    expect(res.status).toBe(206);
    const boundary = /^multipart\/byteranges; boundary=([0-9a-f]{60})$/.exec(res.headers.get('content-type')!)?.[1];
    expect(boundary).toBeDefined();
    const body = await textOf(res);
    expect(body).toBe(
      `--${boundary}\r\nContent-Range: bytes 0-1/26\r\nContent-Type: video/mp4\r\n\r\nab` +
        `\r\n--${boundary}\r\nContent-Range: bytes 24-25/26\r\nContent-Type: video/mp4\r\n\r\nyz` +
        `\r\n--${boundary}--\r\n`,
    );
    expect(res.headers.get('content-length')).toBe(String(body.length));
  });

  it('a range past the end is 416 with Content-Range bytes */SIZE, the {error} body and still no-store', async () => {
    await setup();
    const res = await media({ path: 'clip.mp4', ticket: await ticketFor('clip.mp4') }, { range: 'bytes=26-' });
    expect(res.status).toBe(416);
    expect(Object.fromEntries(res.headers)).toEqual({
      'cache-control': 'no-store',
      'content-range': 'bytes */26',
      'content-type': 'application/json; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'content-security-policy': 'sandbox allow-scripts',
    });
    expect(await res.json()).toEqual({ error: 'invalid range: failed to overlap' });
  });

  it('HEAD: the same headers as GET, no body', async () => {
    await setup();
    const ticket = await ticketFor('clip.mp4');
    const head = await media({ path: 'clip.mp4', ticket }, { range: 'bytes=0-9' }, 'HEAD');
    const get = await media({ path: 'clip.mp4', ticket }, { range: 'bytes=0-9' });
    expect(head.status).toBe(206);
    expect(Object.fromEntries(head.headers)).toEqual(Object.fromEntries(get.headers));
    expect(head.headers.get('content-length')).toBe('10');
    expect(await head.arrayBuffer()).toEqual(new ArrayBuffer(0));
    await get.body?.cancel();
  });

  it('an empty file is 200 with no bytes, whatever the Range says', async () => {
    await setup();
    const res = await media({ path: 'empty.webm', ticket: await ticketFor('empty.webm') }, { range: 'bytes=0-10' });
    expect([res.status, res.headers.get('content-length'), res.headers.get('content-type')]).toEqual([200, '0', 'video/webm']);
    expect(await textOf(res)).toBe('');
  });

  it('honours the validators as /api/raw does: If-None-Match with the ETag is 304, a stale If-Range sends it whole', async () => {
    await setup();
    const ticket = await ticketFor('clip.mp4');
    const etag = (await media({ path: 'clip.mp4', ticket }, {}, 'HEAD')).headers.get('etag')!;
    const cached = await media({ path: 'clip.mp4', ticket }, { 'if-none-match': etag });
    expect([cached.status, cached.headers.get('cache-control'), await textOf(cached)]).toEqual([304, 'no-store', '']);
    const resumed = await media({ path: 'clip.mp4', ticket }, { range: 'bytes=10-', 'if-range': etag });
    expect([resumed.status, await textOf(resumed)]).toEqual([206, ALPHABET.slice(10)]);
    const stale = await media({ path: 'clip.mp4', ticket }, { range: 'bytes=10-', 'if-range': '"stale"' });
    expect([stale.status, await textOf(stale)]).toEqual([200, ALPHABET]);
  });

  describe('download', () => {
    it('adds an RFC 5987 attachment disposition with the requested name', async () => {
      await setup();
      const ticket = await ticketFor('clip.mp4');
      for (const download of ['', '1', 'true']) {
        const res = await media({ path: 'clip.mp4', ticket, download });
        expect(res.headers.get('content-disposition'), download).toBe(`attachment; filename="clip.mp4"; filename*=UTF-8''clip.mp4`);
        expect(await textOf(res)).toBe(ALPHABET);
      }
      for (const download of ['0', 'false']) {
        const res = await media({ path: 'clip.mp4', ticket, download });
        expect(res.headers.has('content-disposition'), download).toBe(false);
        await res.body?.cancel();
      }
    });

    it('a unicode name: an ASCII fallback without accents, the exact name UTF-8 percent-encoded', async () => {
      await setup();
      const path = 'média/vidéo ünï.mp4';
      const res = await media({ path, ticket: await ticketFor(path), download: '' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="video uni.mp4"; filename*=UTF-8''vid%C3%A9o%20%C3%BCn%C3%AF.mp4`,
      );
      expect(await textOf(res)).toBe('unicode');
    });

    it('a name with quotes: escaped in the quoted fallback, percent-encoded in filename*', async () => {
      await setup();
      const path = 'my "best" clip.mp4';
      const res = await media({ path, ticket: await ticketFor(path), download: '' });
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="my \\"best\\" clip.mp4"; filename*=UTF-8''my%20%22best%22%20clip.mp4`,
      );
      expect(await textOf(res)).toBe('quoted');
    });

    it('a link downloads under its own name, not its target’s', async () => {
      await setup();
      const res = await media({ path: 'alias.mp4', ticket: await ticketFor('alias.mp4'), download: '1' });
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="alias.mp4"; filename*=UTF-8''alias.mp4`);
      expect(await textOf(res)).toBe(ALPHABET);
    });

    it('any other value of download is 400', async () => {
      await setup();
      const res = await media({ path: 'clip.mp4', ticket: await ticketFor('clip.mp4'), download: 'yes' });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'invalid query: download: download must be empty, 1, true, 0 or false' });
    });
  });

  describe('the ticket', () => {
    it('is required, with or without the token, in any form', async () => {
      await setup();
      const missing = { error: 'missing media ticket' };
      for (const res of [
        await media({ path: 'clip.mp4' }),
        await media({ path: 'clip.mp4', ticket: '' }),
        await media({ path: 'clip.mp4' }, { authorization: `Bearer ${TEST_TOKEN}` }),
        await media({ path: 'clip.mp4' }, { 'x-intentic-control': TEST_TOKEN }),
        await media({ path: 'clip.mp4', token: TEST_TOKEN }),
      ]) {
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual(missing);
      }
    });

    it('is enough without the token, and a wrong token beside it changes nothing', async () => {
      await setup();
      const ticket = await ticketFor('clip.mp4');
      const withWrongToken = await media({ path: 'clip.mp4', ticket, token: 'wrong' }, { authorization: 'Bearer wrong' });
      expect(withWrongToken.status).toBe(200);
      expect(await textOf(withWrongToken)).toBe(ALPHABET);
    });

    it('minted for another path is 401, and so is a forged or malformed one', async () => {
      await setup();
      const forSong = await ticketFor('song.MP3');
      const [expiry, signature] = forSong.split('.') as [string, string];
      const cases: Array<[string, string]> = [
        [forSong, 'media ticket not valid for this file'],
        [`${expiry}.${(signature[0] === 'A' ? 'B' : 'A') + signature.slice(1)}`, 'media ticket not valid for this file'],
        [`${Number(expiry) + HOUR}.${signature}`, 'media ticket not valid for this file'],
        ['not-a-ticket', 'malformed media ticket'],
      ];
      for (const [ticket, error] of cases) {
        const res = await media({ path: 'clip.mp4', ticket });
        expect(res.status, ticket).toBe(401);
        expect(await res.json()).toEqual({ error });
      }
    });

    it('is bound to the resolved file: a ticket minted through a link serves the file it leads to', async () => {
      await setup();
      const res = await media({ path: 'clip.mp4', ticket: await ticketFor('alias.mp4') });
      expect(res.status).toBe(200);
      expect(await textOf(res)).toBe(ALPHABET);
    });

    it('an expired ticket is 401 (signed with the app’s key an hour and a second ago)', async () => {
      await setup();
      const clip = `${b.root}/clip.mp4`;
      const old = createMediaTickets({ ttlMs: HOUR, key: KEY, now: () => Date.now() - HOUR - 1000 });
      const { ticket } = await old.mint({ file: clip, agent: undefined });
      const res = await media({ path: 'clip.mp4', ticket });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'media ticket expired' });
      // The same key and file, minted now: accepted (so the refusal above is the expiry, nothing else).
      const fresh = await createMediaTickets({ ttlMs: HOUR, key: KEY }).mint({ file: clip, agent: undefined });
      const accepted = await media({ path: 'clip.mp4', ticket: fresh.ticket });
      expect([accepted.status, await textOf(accepted)]).toEqual([200, ALPHABET]);
    });

    it('dies with the app instance that minted it (a random key per instance)', async () => {
      await setup({ mediaTicketKey: undefined });
      const ticket = await ticketFor('clip.mp4');
      const before = await media({ path: 'clip.mp4', ticket });
      expect([before.status, await textOf(before)]).toEqual([200, ALPHABET]);
      const restarted = await createFixture(backend, seed);
      try {
        const res = await restarted.app.fetch(new Request(`http://localhost/workspace/media${q({ path: 'clip.mp4', ticket })}`));
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ error: 'media ticket not valid for this file' });
      } finally {
        await restarted.cleanup();
      }
    });
  });

  describe('checks in the order path, ticket, size', () => {
    it('a missing or empty path is 400 before anything else', async () => {
      await setup();
      for (const params of [{}, { path: '' }, { ticket: 'x' }] as Record<string, string>[]) {
        const res = await media(params);
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({ error: 'invalid query: path: missing path' });
      }
    });

    it('path before ticket: escaping 400, missing 404, a folder 400 — whatever the ticket', async () => {
      await setup();
      const valid = await ticketFor('clip.mp4');
      for (const ticket of [undefined, 'forged', valid]) {
        const params = (path: string): Record<string, string> => (ticket === undefined ? { path } : { path, ticket });
        const escaping = await media(params('../outside.mp4'));
        expect([escaping.status, await escaping.json()]).toEqual([400, { error: 'path is outside the workspace' }]);
        const viaLink = await media(params('escape'));
        expect([viaLink.status, await viaLink.json()]).toEqual([400, { error: 'path is outside the workspace' }]);
        const missing = await media(params('nope.mp4'));
        expect([missing.status, await missing.json()]).toEqual([404, { error: 'no such file: nope.mp4' }]);
        const folder = await media(params('folder'));
        expect([folder.status, await folder.json()]).toEqual([400, { error: 'path is a directory: folder' }]);
      }
    });

    it('a malformed agent is 400 and an unknown one 404, before the ticket', async () => {
      await setup();
      const bad = await media({ path: 'clip.mp4', agent: '../x' });
      expect([bad.status, await bad.json()]).toEqual([400, { error: 'invalid agent id: "../x"' }]);
      const unknown = await media({ path: 'clip.mp4', agent: 'nobody' });
      expect([unknown.status, await unknown.json()]).toEqual([404, { error: 'unknown agent: nobody' }]);
    });

    it('ticket before size: a bad ticket with an unsatisfiable range is 401, not 416', async () => {
      await setup();
      const res = await media({ path: 'clip.mp4', ticket: await ticketFor('song.MP3') }, { range: 'bytes=99-' });
      expect(res.status).toBe(401);
      expect(res.headers.has('content-range')).toBe(false);
    });
  });
});

describe('/workspace/media over a real server (Node)', () => {
  let b: Fixture;
  let server: NodeServer;
  afterEach(async () => {
    await server.close();
    await b.cleanup();
  });

  it('streams a multi-megabyte binary file in ranges to an ordinary fetch, with no token', async () => {
    b = await createFixture('node', {});
    const bytes = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => (i * 31 + (i >> 9)) & 0xff);
    await writeFile(join(b.root, 'big.webm'), bytes);
    server = await startNodeServer({ root: b.root, auth: { token: TEST_TOKEN }, port: 0 });
    const minted = await fetch(`${server.url}/workspace/media-ticket`, {
      method: 'POST',
      headers: { 'x-intentic-control': TEST_TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'big.webm' }),
    });
    const { ticket } = (await minted.json()) as { ticket: string };
    const url = `${server.url}/workspace/media${q({ path: 'big.webm', ticket })}`;

    const whole = await fetch(url);
    expect([whole.status, whole.headers.get('content-length'), whole.headers.get('content-type')]).toEqual([
      200,
      String(bytes.length),
      'video/webm',
    ]);
    expect(Buffer.from(await whole.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);

    const from = 1024 * 1024 - 5;
    const part = await fetch(url, { headers: { range: `bytes=${from}-` } });
    expect([part.status, part.headers.get('content-range')]).toEqual([206, `bytes ${from}-${bytes.length - 1}/${bytes.length}`]);
    expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(bytes.subarray(from)))).toBe(true);

    const head = await fetch(url, { method: 'HEAD', headers: { range: 'bytes=0-99' } });
    expect([head.status, head.headers.get('content-length'), head.headers.get('accept-ranges'), await head.text()]).toEqual([
      206,
      '100',
      'bytes',
      '',
    ]);

    const refused = await fetch(`${server.url}/workspace/media${q({ path: 'big.webm', ticket: 'x' })}`);
    expect([refused.status, await refused.json()]).toEqual([401, { error: 'malformed media ticket' }]);
  });
});
