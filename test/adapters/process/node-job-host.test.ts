/**
 * The job engine's Node powers (adapters/process/node-job-host.ts): the children's environment, free ports, killing
 * a whole process tree (also what left its session by setsid) and the HTTP/HTTPS health probe — real processes,
 * real sockets.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeJobHost } from '../../../adapters/process/node-job-host.ts';
import { isRunning, portRefused, waitFor } from '../../support/processes.ts';

const host = new NodeJobHost();
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'wsapi-jobhost-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

const listen = (server: Server, port = 0) =>
  new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('env', () => {
  it('is the daemon environment minus npm_* (and its terminal variables), PATH led by <cwd>/node_modules/.bin, extra on top', () => {
    const env = new NodeJobHost({
      env: { PATH: '/usr/bin:/bin', HOME: '/home/x', npm_config_loglevel: 'silent', npm_lifecycle_event: 'start', NPM_CONFIG_REGISTRY: 'r', TMUX: 't' },
    }).env('/w/app', { PORT: '4000' });
    expect(env).toEqual({ PATH: '/w/app/node_modules/.bin:/usr/bin:/bin', HOME: '/home/x', NPM_CONFIG_REGISTRY: 'r', PORT: '4000' });
  });
});

describe('freePort', () => {
  it('gives a port nothing listens on, that a server can then bind', async () => {
    const port = await host.freePort();
    expect(port).toBeGreaterThan(0);
    expect(await portRefused(port)).toBe(true);
    const server = createTcpServer();
    expect(await listen(server, port)).toBe(port);
    await close(server);
  });
});

describe('killTree', () => {
  it('kills the tree with SIGTERM, children that setsid out of the session included, and resolves once all are gone', async () => {
    const escapedFile = join(scratch, 'escaped');
    const childFile = join(scratch, 'child');
    // A session leader (as a pty's shell is) with a child in its group and a grandchild in a session of its own.
    const leader = spawn('/bin/sh', ['-c', `setsid sh -c 'echo $$ > ${escapedFile}; exec sleep 100' & sleep 100 & echo $! > ${childFile}; wait`], {
      detached: true,
      stdio: 'ignore',
    });
    const pidIn = (file: string) => readFile(file, 'utf8').then((text) => (text.endsWith('\n') ? Number(text) : undefined), () => undefined);
    const escaped = await waitFor(() => pidIn(escapedFile));
    const child = await waitFor(() => pidIn(childFile));
    const sid = (pid: number) => execFileSync('ps', ['-o', 'sid=', '-p', String(pid)]).toString().trim();
    expect(sid(escaped!)).not.toBe(sid(leader.pid!)); // it really left the session
    const started = Date.now();
    await host.killTree(leader.pid!, { graceMs: 10_000 });
    expect(Date.now() - started).toBeLessThan(5000); // SIGTERM was enough: no wait for the grace period
    expect([isRunning(leader.pid!), isRunning(child!), isRunning(escaped!)]).toEqual([false, false, false]);
  });

  it('SIGKILLs what ignores SIGTERM once the grace period is over', async () => {
    // The child's pid is written once the trap is set and the child (which inherits the ignored TERM) runs.
    const childFile = join(scratch, 'ignoring-child');
    const leader = spawn('/bin/sh', ['-c', `trap '' TERM; sleep 100 & echo $! > ${childFile}; wait`], { detached: true, stdio: 'ignore' });
    const child = await waitFor(() => readFile(childFile, 'utf8').then((text) => (text.endsWith('\n') ? Number(text) : undefined), () => undefined));
    const started = Date.now();
    await host.killTree(leader.pid!, { graceMs: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect([isRunning(leader.pid!), isRunning(child)]).toEqual([false, false]);
  });
});

describe('probe', () => {
  it('is true for an HTTP server (any status), false once it is gone', async () => {
    const server = createHttpServer((_, response) => response.writeHead(500).end());
    const port = await listen(server);
    expect(await host.probe(port, 1500)).toBe(true);
    await close(server);
    const started = Date.now();
    expect(await host.probe(port, 5000)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2500); // refused: no wait
  });

  it('is true for an HTTPS server with a self-signed certificate', async () => {
    const key = join(scratch, 'key.pem');
    const cert = join(scratch, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    const server = createHttpsServer({ key: await readFile(key), cert: await readFile(cert) }, (_, response) => response.end('ok'));
    const port = await listen(server);
    expect(await host.probe(port, 1500)).toBe(true);
    await close(server);
  });

  it('is false, within its time limit, for a server that accepts and never answers', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const server = createTcpServer((socket) => sockets.add(socket));
    const port = await listen(server);
    const started = Date.now();
    expect(await host.probe(port, 400)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
    for (const socket of sockets) socket.destroy();
    await close(server);
  });
});
