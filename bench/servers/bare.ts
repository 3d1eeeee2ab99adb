/**
 * Child process: the ANCHOR server — bare node:http, no framework, no auth, same root, on 127.0.0.1.
 *   GET /raw?path=NAME   streams the file with fs.createReadStream (what a hand-written static server does)
 *   GET /file?path=NAME  reads the file and answers JSON {path, content}
 * NAME is a file name inside BENCH_ROOT (no containment logic: the anchor is the floor, not a product).
 * Prints `{"port":N}` on stdout once listening.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';

const root = process.env.BENCH_ROOT;
if (!root) throw new Error('BENCH_ROOT is required');

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const file = join(root, basename(url.searchParams.get('path') ?? ''));
  if (url.pathname === '/raw') {
    stat(file).then(
      (info) => {
        response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': info.size });
        createReadStream(file).pipe(response);
      },
      () => response.writeHead(404).end(),
    );
    return;
  }
  if (url.pathname === '/file') {
    readFile(file, 'utf8').then(
      (content) => {
        const body = JSON.stringify({ path: file, content });
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        response.end(body);
      },
      () => response.writeHead(404).end(),
    );
    return;
  }
  response.writeHead(404).end();
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port, via: 'node:http' }) + '\n');
});

// Exit normally on SIGTERM so `node --cpu-prof` writes its profile (bench/profile.ts).
process.on('SIGTERM', () => process.exit(0));
