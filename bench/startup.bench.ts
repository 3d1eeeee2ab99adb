/**
 * (startup) How long the daemon takes from `node` launched to its `listening on` line, for an empty folder, default
 * flags (panel, watcher, search index): the built bin (`dist/build`, plain node: what `npx workspace-api` and
 * `npm start` run) vs the same CLI from source through tsx's loader (how it started before the package had a build),
 * and a bare node:http server's start as the floor. RUNS launches per side, interleaved; each is stopped with
 * SIGTERM once it has listened.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../runtime/worker-build.ts';
import type { Figure } from './lib/result.ts';
import { median, sampleRoundRobin } from './lib/stats.ts';

const RUNS = 9;
const BARE_SERVER = `require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });`;

/** Milliseconds from spawn to the first `listening on` line on stdout; the process is then stopped. */
function timeToListening(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: projectRoot, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, WORKSPACE_TOKEN: 'bench' } });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (!out.includes('listening on ')) return;
      const ms = performance.now() - started;
      child.once('exit', () => resolve(ms));
      child.kill('SIGTERM');
    });
    child.once('exit', (code) => {
      if (!out.includes('listening on ')) reject(new Error(`exited (${code}) before listening`));
    });
  });
}

export async function benchStartup(): Promise<Figure[]> {
  const built = spawnSync(process.execPath, ['runtime/ensure-built.mjs'], { cwd: projectRoot, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the build failed');
  const empty = await mkdtemp(join(tmpdir(), 'wsapi-bench-startup-'));
  try {
    const flags = ['--cwd', empty, '--port', '0'];
    const [bin, source, bare] = await sampleRoundRobin(RUNS, [
      () => timeToListening(['bin/workspace-api.js', ...flags]),
      () => timeToListening(['--import', 'tsx', 'runtime/node/cli.ts', ...flags]),
      () => timeToListening(['-e', BARE_SERVER]),
    ]);
    const note = `empty folder, default flags, median of ${RUNS} interleaved`;
    return [
      { figure: 'start to `listening on`: built bin vs from source (tsx)', unit: 'ms', ours: median(bin!), anchor: median(source!), higherIsBetter: false, note },
      { figure: 'start to `listening on`: built bin vs bare node:http', unit: 'ms', ours: median(bin!), anchor: median(bare!), higherIsBetter: false, note: 'the floor: node itself starting a server' },
    ];
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
}
