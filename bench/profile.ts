/**
 * Profiles OUR server under one bench workload and prints where the CPU time goes.
 *   node --import tsx bench/profile.ts file|raw|search|tree [query]
 *   node --import tsx bench/profile.ts terminal-ori|terminal-named|terminal-rpc   (3 runs of the terminal bench's output)
 * The server child runs with `node --cpu-prof`; the .cpuprofile lands in .bench-cache/profiles (open it in
 * Chrome DevTools → Performance for the flame chart). Printed: top functions by self time, and self time per file.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { startChildServer } from './lib/child-server.ts';
import { closeClient, drain } from './lib/http-client.ts';
import { runLoad } from './lib/load.ts';
import { log } from './lib/log.ts';
import { bigFileName, cacheDir, projectRoot, smallFileName } from './lib/paths.ts';
import { prepareCorpus } from './prepare-corpus.ts';
import { openTerminal, TERMINAL_KINDS, type TerminalKind } from './lib/terminal-links.ts';
import { runOnLink, WORKLOADS } from './terminal.bench.ts';
import { prepareTreeCorpus } from './tree.bench.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

const workload = process.argv[2] ?? 'file';
const query = process.argv[3] ?? 'sched';
const prepared = await prepareCorpus();
const token = randomBytes(24).toString('base64url');
const profileDir = join(cacheDir, 'profiles');
await mkdir(profileDir, { recursive: true });
const before = new Set(await readdir(profileDir));

const root =
  workload === 'search' ? prepared.linuxTree : workload === 'tree' ? await prepareTreeCorpus(prepared.linuxTree) : prepared.filesRoot;
const server = await startChildServer('ours', 'ours', { BENCH_ROOT: root, BENCH_TOKEN: token, BENCH_MAX_SEARCH_ENTRIES: 'Infinity', SHELL: '/bin/sh' }, [
  '--cpu-prof',
  `--cpu-prof-dir=${profileDir}`,
]);
const auth = { authorization: `Bearer ${token}` };
try {
  if (workload === 'file') {
    await runLoad({ url: `${server.baseUrl}/api/file?path=${smallFileName}`, headers: auth, connections: 32, seconds: 5 });
  } else if (workload === 'raw') {
    for (let i = 0; i < 3; i++) await drain(`${server.baseUrl}/api/raw?path=${bigFileName}`, auth);
  } else if (workload === 'search') {
    for (let i = 0; i < 5; i++) await drain(`${server.baseUrl}/api/files/search?q=${encodeURIComponent(query)}&limit=500`, auth);
  } else if (workload.startsWith('terminal-') && TERMINAL_KINDS.includes(workload.slice('terminal-'.length) as TerminalKind)) {
    const kind = workload.slice('terminal-'.length) as TerminalKind;
    const output = WORKLOADS[process.env.BENCH_TERMINAL_OUTPUT ?? 'tr']!;
    for (let i = 0; i < 3; i++) {
      const link = await openTerminal(kind, server.baseUrl, token);
      try {
        const { bytes, ms } = await runOnLink(kind, link, output);
        log(`${kind}: ${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(1)} MiB/s (profiling slows it)`);
      } finally {
        await link.close();
      }
    }
  } else if (workload === 'tree') {
    for (let i = 0; i < 20; i++) await drain(`${server.baseUrl}/workspace/tree`, auth);
  } else {
    throw new Error(`unknown workload ${workload} (file|raw|search|tree|terminal-ori|terminal-named|terminal-rpc)`);
  }
} finally {
  await server.stop();
  await closeClient();
}

const created = (await readdir(profileDir)).filter((f) => !before.has(f) && f.endsWith('.cpuprofile'));
if (created.length === 0) throw new Error('no profile written');
// tsx's loader thread writes its own (mostly idle) profile: keep the busiest one, the main thread's.
let file = '';
let profile: CpuProfile | undefined;
let busiest = -1;
for (const name of created) {
  const candidate = JSON.parse(await readFile(join(profileDir, name), 'utf8')) as CpuProfile;
  const busy = candidate.nodes.reduce((sum, n) => sum + (n.callFrame.functionName === '(idle)' ? 0 : (n.hitCount ?? 0)), 0);
  if (busy > busiest) [busiest, file, profile] = [busy, join(profileDir, name), candidate];
}
if (!profile) throw new Error('no profile readable');
const totalSamples = profile.samples.length;
const msPerSample = (profile.endTime - profile.startTime) / 1000 / Math.max(totalSamples, 1);

const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0;
  if (!hits) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? shorten(url) : '(native)';
  const key = `${functionName || '(anonymous)'}  ${where}:${lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + hits);
  byFile.set(where, (byFile.get(where) ?? 0) + hits);
}
function shorten(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  return path.startsWith(projectRoot) ? relative(projectRoot, path) : path;
}
function top(map: Map<string, number>, n: number): void {
  for (const [key, hits] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(`${((hits / totalSamples) * 100).toFixed(1).padStart(5)}%  ${(hits * msPerSample).toFixed(0).padStart(6)} ms  ${key}`);
  }
}
console.log(`profile: ${file} (${totalSamples} samples, ${(totalSamples * msPerSample / 1000).toFixed(1)} s)`);
console.log('\nTop functions by self time:');
top(byFunction, 25);
console.log('\nSelf time by file:');
top(byFile, 20);
log('done');
