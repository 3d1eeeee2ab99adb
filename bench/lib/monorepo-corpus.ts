/**
 * The project calls' monorepo (a large monorepo fixture, ≥ 500 packages), generated once into
 * `.bench-cache/monorepo` (made in a staging folder and renamed when complete): a pnpm workspace with
 * `packages/*` (500 libraries) and `apps/*` (20 apps with a `dev` script), every package depending on up to three
 * lower-numbered ones (`workspace:*`) plus a dev dependency, a `src/index.ts` that imports them, a lockfile and a git
 * history of 30 commits touching a few packages each. Deterministic (no randomness), so every run sees one tree.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir } from './paths.ts';

export const monorepoDir = join(cacheDir, 'monorepo');
export const LIBRARY_COUNT = 500;
export const APP_COUNT = 20;
const HISTORY_COMMITS = 30;

const pkgName = (i: number) => `@mono/lib-${String(i).padStart(3, '0')}`;
const pkgDir = (i: number) => `packages/lib-${String(i).padStart(3, '0')}`;

/** Up to three lower-numbered libraries, spread so the graph is neither a chain nor a star. */
function depsOf(i: number): number[] {
  return [i - 1, Math.floor(i / 2), Math.floor(i / 7)].filter((d, k, all) => d >= 0 && d < i && all.indexOf(d) === k);
}

function librarySource(i: number, deps: number[]): string {
  const imports = deps.map((d) => `import { value${d} } from '${pkgName(d)}';`).join('\n');
  const sum = deps.map((d) => `value${d}`).join(' + ') || '0';
  return `${imports}
export const value${i} = ${i} + ${sum};
export function pick${i}(flag: boolean, items: number[]): number {
  let total = 0;
  for (const item of items) {
    if (flag && item > ${i}) total += item;
    else if (item % 2 === 0 || item === ${i}) total -= item;
  }
  return total > 0 ? total : value${i} ?? 0;
}
`;
}

export async function prepareMonorepo(): Promise<string> {
  if (existsSync(monorepoDir)) return monorepoDir;
  const staging = `${monorepoDir}.partial`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  const write = async (path: string, text: string) => {
    await mkdir(join(staging, path, '..'), { recursive: true });
    await writeFile(join(staging, path), text);
  };
  await write('package.json', JSON.stringify({ name: 'mono', private: true, packageManager: 'pnpm@9.0.0' }, null, 2));
  await write('pnpm-workspace.yaml', "packages:\n  - 'packages/*'\n  - 'apps/*'\n  - '!packages/**/fixtures/**'\n");
  await write('pnpm-lock.yaml', "lockfileVersion: '9.0'\n");
  for (let i = 0; i < LIBRARY_COUNT; i++) {
    const deps = depsOf(i);
    await write(`${pkgDir(i)}/package.json`, JSON.stringify({
      name: pkgName(i),
      version: '1.0.0',
      main: 'src/index.ts',
      dependencies: Object.fromEntries(deps.map((d) => [pkgName(d), 'workspace:*'])),
      devDependencies: { typescript: '5.9.3' },
    }, null, 2));
    await write(`${pkgDir(i)}/src/index.ts`, librarySource(i, deps));
  }
  for (let a = 0; a < APP_COUNT; a++) {
    const uses = [a * 25, a * 25 + 7].filter((d) => d < LIBRARY_COUNT);
    await write(`apps/app-${a}/package.json`, JSON.stringify({
      name: `@mono/app-${a}`,
      private: true,
      scripts: { dev: 'node server.js' },
      dependencies: Object.fromEntries(uses.map((d) => [pkgName(d), 'workspace:*'])),
      devDependencies: { vite: '7.0.0' },
    }, null, 2));
    await write(`apps/app-${a}/server.js`, "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n");
  }
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'b@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'b@example.com' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: staging, env, stdio: ['ignore', 'ignore', 'pipe'] });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'import', '--date', '1700000000 +0000');
  for (let c = 1; c <= HISTORY_COMMITS; c++) {
    for (const i of [c % LIBRARY_COUNT, (c * 17) % LIBRARY_COUNT, (c * 31) % LIBRARY_COUNT]) {
      await write(`${pkgDir(i)}/src/index.ts`, `${librarySource(i, depsOf(i))}// revision ${c}\n`);
    }
    const date = `${1700000000 + c * 3600} +0000`;
    execFileSync('git', ['commit', '-q', '-am', `change ${c}`], { cwd: staging, env: { ...env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date }, stdio: ['ignore', 'ignore', 'pipe'] });
  }
  await rename(staging, monorepoDir);
  return monorepoDir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  console.log(await prepareMonorepo(), `${Date.now() - started} ms`);
}
