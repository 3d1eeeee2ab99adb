/**
 * The leak check (test/support/leak-check.ts) fails a test file for each kind of leftover and names it: a child
 * vitest runs fixture files (test/support-checks/fixtures/) that leave processes, temp files, fds and inotify
 * watches behind, and one that undoes everything it did only as it ends, some of it a moment late.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isRunning } from '../support/processes.ts';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

interface FileResult {
  name: string;
  status: string;
  message: string;
}

/** The pids of running `sleep SECONDS` processes: the fixture's leaked sleeps, by their unusual durations. */
async function sleepers(seconds: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline === `sleep\0${seconds}\0` && isRunning(Number(name))) found.push(Number(name));
  }
  return found;
}

describe('the leak check', () => {
  let results: Map<string, FileResult>;
  let scratch: string;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'leak-check-'));
    const report = join(scratch, 'report.json');
    // The child must see a plain environment, not this worker's vitest variables; its own files get temp folders
    // of their own, and anything its main process writes to $TMPDIR lands in `scratch`.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
    const child = spawn(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--config', join(fixtures, 'vitest.config.ts'), '--reporter=json', `--outputFile=${report}`],
      // A shorter wait for leftovers to go: the fixtures that leave some then fail sooner (the clean one needs 200 ms).
      { cwd: repo, env: { ...env, TMPDIR: scratch, WSAPI_LEAK_SETTLE_MS: '1000' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise((resolve) => child.once('close', resolve));
    const json = await readFile(report, 'utf8').catch(() => {
      throw new Error(`the child vitest wrote no report (exit ${code}):\n${stderr}`);
    });
    const parsed = JSON.parse(json) as { testResults: FileResult[] };
    results = new Map(parsed.testResults.map((result) => [result.name.slice(fixtures.length), result]));
  }, 30_000);

  afterAll(() => rm(scratch, { recursive: true, force: true }));

  test('names a child process and an orphaned grandchild by their command lines, and kills them', async () => {
    const result = results.get('leaks-processes-and-temp-files.fixture.ts')!;
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/process \d+ \(parent \d+\): sleep 3001 — killed now/);
    // Re-parented away from the worker (to init or a subreaper), found by the TMPDIR it inherited.
    expect(result.message).toMatch(/process \d+ \(parent \d+\): sleep 3002 — killed now/);
    expect([...(await sleepers('3001')), ...(await sleepers('3002'))]).toEqual([]);
  });

  test('names the entries left in the file\'s temp folder', () => {
    const result = results.get('leaks-processes-and-temp-files.fixture.ts')!;
    expect(result.message).toMatch(/files in its temp folder \S+ \(\$TMPDIR\): left-behind\/, left-behind\/notes\.txt — removed now/);
  });

  test('names an open file by its path and a socket by its addresses', () => {
    const result = results.get('leaks-fds-and-watches.fixture.ts')!;
    expect(result.status).toBe('failed');
    expect(result.message).toContain(`: ${join(fixtures, 'leaks-fds-and-watches.fixture.ts')}`);
    expect(result.message).toMatch(/fd \d+: socket:\[\d+\] tcp 127\.0\.0\.1:\d+ -> 0\.0\.0\.0:0 listening/);
  });

  test('counts inotify watches and names their inodes', () => {
    const result = results.get('leaks-fds-and-watches.fixture.ts')!;
    expect(result.message).toContain('inotify watches: 1 now, 0 at the file\'s start');
    expect(result.message).toMatch(/fd \d+ inode 0x[0-9a-f]+ \(\d+\)/);
  });

  test('passes a file that lets go of everything by its end but what it may leave, waiting for what goes late', () => {
    const result = results.get('cleans-up.fixture.ts')!;
    expect(result.message).toBe('');
    expect(result.status).toBe('passed');
  });
});
