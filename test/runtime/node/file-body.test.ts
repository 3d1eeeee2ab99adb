import { createHash } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { truncate, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ByteRange, ReadStreamOptions } from '../../../adapters/fs/file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { startNodeServer, type NodeServer, type NodeServerOptions } from '../../../runtime/node/server.ts';
import { intenticClient } from '../../support/intentic-contract.ts';
import { waitFor } from '../../support/processes.ts';
import { q, TEST_TOKEN, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const MiB = 1024 * 1024;
/** Not a whole number of the 1 MiB chunks a served file is read in. */
const content = new Uint8Array(3 * MiB + 17).map((_, i) => (i * 31 + (i >> 9)) & 0xff);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The disk, remembering every stream it hands out: the server must send the file without reading them. */
class RecordingFileSystem extends NodeFileSystem {
  readonly streams: ReadableStream<Uint8Array>[] = [];
  override async readStream(path: string, range?: ByteRange, options?: ReadStreamOptions): Promise<ReadableStream<Uint8Array>> {
    const stream = await super.readStream(path, range, options);
    this.streams.push(stream);
    return stream;
  }
}

/** How many of this process's descriptors are open on `file` (the server runs in this process). */
function openDescriptors(file: string): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) count++;
    } catch {
      // closed between the listing and the readlink
    }
  }
  return count;
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** One request over node:http (a fresh connection), the body read to the end. */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('file bodies over the Node server (sent from the file, not through the web stream)', () => {
  let workspace: TempWorkspace;
  let fs: RecordingFileSystem;
  let server: NodeServer | undefined;
  let file: string;
  const auth = { authorization: `Bearer ${TEST_TOKEN}` };

  beforeEach(async () => {
    workspace = await tempWorkspace({ 'data.bin': content, 'clip.mp4': content });
    file = `${workspace.root}/data.bin`;
    fs = new RecordingFileSystem();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await workspace.cleanup();
  });

  async function start(options: Partial<NodeServerOptions> = {}): Promise<NodeServer> {
    server = await startNodeServer({ root: workspace.root, auth: { token: TEST_TOKEN }, port: 0, watch: false, fs, ...options });
    return server;
  }
  const unread = () => fs.streams.length > 0 && fs.streams.every((stream) => !stream.locked);

  it('GET /api/raw: the exact bytes, the file closed afterwards, its web stream never read', async () => {
    const { url } = await start();
    const answer = await get(`${url}/api/raw?path=data.bin`, auth);
    expect([answer.status, answer.headers['content-length'], answer.headers['content-type']]).toEqual([
      200,
      String(content.length),
      'application/octet-stream',
    ]);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers.etag).toMatch(/^"/);
    expect(sha256(answer.body)).toBe(sha256(content));
    expect(fs.streams).toHaveLength(1);
    expect(unread()).toBe(true);
    await waitFor(() => openDescriptors(file) === 0, { what: 'the served file to be closed' });
  });

  it('GET /workspace/raw and /workspace/media (ticket from the Intentic client) take the same path', async () => {
    const { url } = await start();
    const raw = await get(`${url}/workspace/raw${q({ path: 'clip.mp4' })}`, { 'x-intentic-control': TEST_TOKEN });
    expect([raw.status, raw.headers['content-type'], sha256(raw.body)]).toEqual([200, 'video/mp4', sha256(content)]);
    const { ticket } = await intenticClient({ url }).workspace.mediaTicket({ path: 'clip.mp4' });
    const media = await get(`${url}/workspace/media${q({ path: 'clip.mp4', ticket })}`);
    expect([media.status, media.headers['content-type'], sha256(media.body)]).toEqual([200, 'video/mp4', sha256(content)]);
    expect(fs.streams).toHaveLength(2);
    expect(unread()).toBe(true);
  });

  it('single ranges across chunk boundaries and to the end; multipart ranges stay on the stream path', async () => {
    const { url } = await start();
    const from = MiB - 5;
    const to = 2 * MiB + 9;
    const middle = await get(`${url}/api/raw?path=data.bin`, { ...auth, range: `bytes=${from}-${to}` });
    expect([middle.status, middle.headers['content-range'], middle.headers['content-length']]).toEqual([
      206,
      `bytes ${from}-${to}/${content.length}`,
      String(to - from + 1),
    ]);
    expect(middle.body.equals(Buffer.from(content.subarray(from, to + 1)))).toBe(true);
    const tail = await get(`${url}/api/raw?path=data.bin`, { ...auth, range: 'bytes=-20' });
    expect([tail.status, tail.body.equals(Buffer.from(content.subarray(-20)))]).toEqual([206, true]);
    const open = await get(`${url}/api/raw?path=data.bin`, { ...auth, range: `bytes=${3 * MiB}-` });
    expect([open.status, open.body.equals(Buffer.from(content.subarray(3 * MiB)))]).toEqual([206, true]);
    expect(unread()).toBe(true);

    const multi = await get(`${url}/api/raw?path=data.bin`, { ...auth, range: 'bytes=0-1,-2' });
    const boundary = /boundary=(\S+)/.exec(multi.headers['content-type']!)![1];
    const part = (range: string, bytes: Uint8Array) =>
      `--${boundary}\r\nContent-Range: bytes ${range}/${content.length}\r\nContent-Type: application/octet-stream\r\n\r\n` +
      Buffer.from(bytes).toString('latin1');
    expect([multi.status, multi.body.toString('latin1')]).toEqual([
      206,
      `${part('0-1', content.subarray(0, 2))}\r\n${part(`${content.length - 2}-${content.length - 1}`, content.subarray(-2))}\r\n--${boundary}--\r\n`,
    ]);
    await waitFor(() => openDescriptors(file) === 0, { what: 'every served range to be closed' });
  });

  it('HEAD, 304 and 416 answer with headers only and leave no file open', async () => {
    const { url } = await start();
    const head = await get(`${url}/api/raw?path=data.bin`, auth, 'HEAD');
    expect([head.status, head.headers['content-length'], head.headers['accept-ranges'], head.body.length]).toEqual([
      200,
      String(content.length),
      'bytes',
      0,
    ]);
    const notModified = await get(`${url}/api/raw?path=data.bin`, { ...auth, 'if-none-match': head.headers.etag! });
    expect([notModified.status, notModified.headers['content-length'], notModified.body.length]).toEqual([304, undefined, 0]);
    const unsatisfiable = await get(`${url}/api/raw?path=data.bin`, { ...auth, range: `bytes=${content.length}-` });
    expect([unsatisfiable.status, unsatisfiable.headers['content-range'], JSON.parse(unsatisfiable.body.toString())]).toEqual([
      416,
      `bytes */${content.length}`,
      { error: 'invalid range: failed to overlap' },
    ]);
    expect(openDescriptors(file)).toBe(0);
  });

  it('keeps the fast path through the CORS wrapper, which rebuilds the response from its body', async () => {
    const { url } = await start({ allowedOrigins: ['https://ide.example'] });
    const answer = await get(`${url}/api/raw?path=data.bin`, { ...auth, origin: 'https://ide.example' });
    expect([answer.status, answer.headers['access-control-allow-origin'], sha256(answer.body)]).toEqual([
      200,
      'https://ide.example',
      sha256(content),
    ]);
    expect(unread()).toBe(true);
  });

  it('a client that hangs up mid-body: the file is closed', async () => {
    const big = `${workspace.root}/big.bin`;
    await writeFile(big, '');
    await truncate(big, 64 * MiB); // sparse: 64 MiB without writing them
    const { url } = await start();
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(`${url}/api/raw?path=big.bin`, { headers: auth, agent: false }, resolve);
      req.on('error', reject);
      req.end();
    });
    expect(res.statusCode).toBe(200);
    await new Promise((resolve) => res.once('data', resolve));
    res.pause();
    expect(openDescriptors(big)).toBe(1);
    res.destroy();
    await waitFor(() => openDescriptors(big) === 0, { what: 'the abandoned file to be closed' });
  });

  it('a file that shrinks mid-body: the connection is cut rather than left waiting for the promised bytes', async () => {
    const big = `${workspace.root}/big.bin`;
    await writeFile(big, '');
    await truncate(big, 64 * MiB); // sparse: 64 MiB without writing them
    const { url } = await start();
    const outcome = await new Promise<{ received: number; promised: number; complete: boolean }>((resolve, reject) => {
      const req = httpRequest(`${url}/api/raw?path=big.bin`, { headers: auth, agent: false }, (res) => {
        let received = 0;
        res.once('data', () => {
          res.pause();
          void truncate(big, 4 * MiB).then(() => res.resume(), reject);
        });
        res.on('data', (chunk: Buffer) => (received += chunk.length));
        res.on('close', () => resolve({ received, promised: Number(res.headers['content-length']), complete: res.complete }));
      });
      req.on('error', () => {}); // the cut connection; 'close' above reports it
      req.end();
    });
    expect(outcome.promised).toBe(64 * MiB);
    expect(outcome.complete).toBe(false);
    expect(outcome.received).toBeLessThan(64 * MiB);
    await waitFor(() => openDescriptors(big) === 0, { what: 'the file to be closed' });
  });
});
