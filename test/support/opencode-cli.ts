/**
 * The real opencode CLI for the agent-chat tests, installed by the tests themselves: `opencode-ai` lists a
 * platform package per OS and CPU as optional dependencies, and a registry that serves only this machine's
 * (as the one here does) leaves a lockfile `npm ci` refuses. So it is not a dependency of the project; the first
 * test run installs the pinned version into `.cache/agent-clis/` (ignored by git) through npm, with its postinstall
 * (which links the platform binary in place), and later runs of that checkout reuse it (a fresh clone downloads
 * it again: ~177 MB, seconds here). Failing to install fails the tests: never a skip.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const OPENCODE_VERSION = '1.18.33';
const FOLDER = fileURLToPath(new URL(`../../.cache/agent-clis/opencode-${OPENCODE_VERSION}/`, import.meta.url));
const INSTALL_TIMEOUT_MS = 10 * 60_000;

const run = promisify(execFile);

/** Runs `task` with a fresh temp folder, removed after whatever happens. */
async function inOwnTemp<T>(task: (temp: string) => Promise<T>): Promise<T> {
  const temp = await mkdtemp(join(tmpdir(), 'opencode-'));
  try {
    return await task(temp);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** The folder holding the `opencode` executable, installing the pinned version first if it is not there. */
export async function opencodeBinFolder(): Promise<string> {
  const bin = join(FOLDER, 'node_modules', '.bin');
  if ((await versionOf(join(bin, 'opencode'))) === OPENCODE_VERSION) return bin;
  await rm(FOLDER, { recursive: true, force: true });
  await mkdir(FOLDER, { recursive: true });
  try {
    // Its install script runs opencode too, which makes `$TMPDIR/opencode`: a temp folder of its own, removed after.
    await inOwnTemp((temp) =>
      run(
        'npm',
        ['install', '--prefix', FOLDER, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `opencode-ai@${OPENCODE_VERSION}`],
        { timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, TMPDIR: temp } },
      ),
    );
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`could not install opencode-ai@${OPENCODE_VERSION} for the tests: ${(stderr ?? String(error)).trim().slice(-2000)}`);
  }
  const installed = await versionOf(join(bin, 'opencode'));
  if (installed !== OPENCODE_VERSION) throw new Error(`opencode-ai@${OPENCODE_VERSION} installed, but \`opencode --version\` says ${installed ?? 'nothing'}`);
  return bin;
}

async function versionOf(executable: string): Promise<string | undefined> {
  // Even `--version` makes `$TMPDIR/opencode`: a temp folder of its own, removed after.
  try {
    return await inOwnTemp(async (temp) => (await run(executable, ['--version'], { timeout: 60_000, env: { ...process.env, TMPDIR: temp } })).stdout.trim());
  } catch {
    return undefined;
  }
}
