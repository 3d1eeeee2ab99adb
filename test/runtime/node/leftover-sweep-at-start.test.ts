/**
 * The daemon's server sweeps killed writers' leftovers once it listens (runtime/node/server.ts,
 * docs/architecture.md#atomic-and-serialised-writes): a dead writer's temp file and staging folder are gone, a
 * user's look-alike stays, and the daemon's log gets one `swept N leftovers` line; an agents folder outside the root
 * is swept with it. `sweepLeftovers: false` runs none.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { namespaceTag } from '../../../adapters/fs/node-writer-identity.ts';
import { startNodeServer, type NodeServer } from '../../../runtime/node/server.ts';
import { TEST_TOKEN, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

let workspace: TempWorkspace | undefined;
let server: NodeServer | undefined;

afterEach(async () => {
  await server?.close();
  await workspace?.cleanup();
  server = workspace = undefined;
});

async function stageLeftovers(root: string): Promise<{ temp: string; staging: string; userFile: string }> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit'); // a pid that ran a writer and runs nothing now
  const temp = join(root, `src/.wsapi-${child.pid}-${namespaceTag()}-0123456789abcdef.tmp`);
  const staging = join(root, `.wsapi-zip-${child.pid}-${namespaceTag()}-fedcba9876543210`);
  const userFile = join(root, '.wsapi-notes.txt');
  await mkdir(join(root, 'src'));
  await mkdir(staging);
  await writeFile(join(staging, '0'), 'half an extraction');
  await writeFile(temp, 'half a write');
  await writeFile(userFile, 'mine');
  return { temp, staging, userFile };
}

it('removes a dead writer’s leftovers after listening and says so in one line', async () => {
  workspace = await tempWorkspace();
  const { temp, staging, userFile } = await stageLeftovers(workspace.root);
  const log: string[] = [];
  server = await startNodeServer({
    root: workspace.root,
    port: 0,
    auth: { token: TEST_TOKEN },
    watch: false,
    searchOptions: { log: (line) => log.push(line) },
  });
  const result = await server.leftoverSweep;
  expect(result?.removed.sort()).toEqual([staging, temp].sort());
  expect([existsSync(temp), existsSync(staging), existsSync(userFile)]).toEqual([false, false, true]);
  expect(log.filter((line) => line.includes('leftovers'))).toEqual([expect.stringMatching(/^workspace-api: swept 2 leftovers \(\d+ entries in [\d.]+ s\)$/)]);
});

it('sweeps an agents folder outside the root too (`--agents-dir`): agents’ writes land there', async () => {
  workspace = await tempWorkspace();
  const agents = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-agents-')));
  try {
    const inRoot = await stageLeftovers(workspace.root);
    const inAgents = await stageLeftovers(agents);
    server = await startNodeServer({ root: workspace.root, agentsDir: agents, port: 0, auth: { token: TEST_TOKEN }, watch: false });
    const result = await server.leftoverSweep;
    expect(result?.removed.sort()).toEqual([inRoot.staging, inRoot.temp, inAgents.staging, inAgents.temp].sort());
    expect([existsSync(inAgents.userFile), existsSync(inRoot.userFile)]).toEqual([true, true]);
  } finally {
    await rm(agents, { recursive: true, force: true });
  }
});

it('sweeps nothing when told not to', async () => {
  workspace = await tempWorkspace();
  const { temp } = await stageLeftovers(workspace.root);
  server = await startNodeServer({ root: workspace.root, port: 0, auth: { token: TEST_TOKEN }, watch: false, sweepLeftovers: false });
  expect(await server.leftoverSweep).toBeUndefined();
  expect(existsSync(temp)).toBe(true);
});
