// `npm start` in a clone runs the compiled daemon (dist/build). This check rebuilds it first when any source is
// newer than the last build (runtime/package-build.ts), so an edit is never silently left out of what runs.
// Plain JavaScript: it runs before anything is compiled, and costs ~20 ms when the build is fresh.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = ['adapters', 'client', 'core', 'handlers', 'runtime', 'templates', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
const STAMP = join(projectRoot, 'dist/build/.built');

function newestUnder(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file shows as its folder's change
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestUnder(join(path, entry)));
  return newest;
}

/** Why the build must be made again, or undefined when it is up to date. */
export function staleReason() {
  const built = statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return 'no build yet';
  const changed = SOURCES.find((source) => newestUnder(join(projectRoot, source)) > built);
  return changed === undefined ? undefined : `${changed} changed since the last build`;
}

export function ensureBuilt({ quiet = false } = {}) {
  const reason = staleReason();
  if (reason === undefined) return;
  if (!quiet) process.stderr.write(`workspace-api: building (${reason})…\n`);
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: projectRoot, stdio: quiet ? 'pipe' : 'inherit', encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status ?? build.signal})${quiet ? `:\n${build.stdout}${build.stderr}` : ''}`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    ensureBuilt();
  } catch (error) {
    process.stderr.write(`workspace-api: ${error.message}\n`);
    process.exit(1);
  }
}
