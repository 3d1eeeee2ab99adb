/**
 * The workspace a hardening run serves: a fresh temporary folder of small text files in a few folders (optionally
 * a git repository with one commit), the terminal stream script, and an empty HOME for the daemon, so its shells
 * and git read no rc file or config of this machine.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Workspace {
  root: string;
  home: string;
  /** Root-relative paths of the text files made. */
  files: string[];
  /** Root-relative folders holding them. */
  dirs: string[];
  /** Root-relative path of the stream script: `bash STREAM LINES` prints LINES lines of 1 KiB every 0.1 s. */
  streamScript: string;
  /** The environment git needs here (identity, no machine config). */
  gitEnv: Record<string, string>;
  remove(): Promise<void>;
}

/**
 * Builtins only (printf, and read with a timeout on a pipe nobody writes as the sleep), so a hundred streaming
 * terminals cost no fork per tick.
 */
const STREAM_SCRIPT = `lines=\${1:-12}
printf -v line '%*s' 1023 ''
line=\${line// /y}
exec {tick}<> <(:)
while :; do
  for ((i = 0; i < lines; i++)); do printf '%s\\n' "$line"; done
  read -t 0.1 -u "$tick" || :
done
`;

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];

export async function makeWorkspace(options: { dirs: number; filesPerDir: number; git: boolean }): Promise<Workspace> {
  const base = await mkdtemp(join(tmpdir(), 'hardening-'));
  const root = join(base, 'ws');
  const home = join(base, 'home');
  await mkdir(home, { recursive: true });
  const files: string[] = [];
  const dirs: string[] = [];
  for (let d = 0; d < options.dirs; d++) {
    const dir = `src/mod${d}`;
    dirs.push(dir);
    await mkdir(join(root, dir), { recursive: true });
    for (let f = 0; f < options.filesPerDir; f++) {
      const path = `${dir}/file${f}.ts`;
      files.push(path);
      const body = Array.from({ length: 64 }, (_, line) => `export const ${WORDS[(d + f + line) % WORDS.length]}_${line} = ${d * 1000 + f}; // ${path}`);
      await writeFile(join(root, path), body.join('\n') + '\n');
    }
  }
  await mkdir(join(root, '.hardening'), { recursive: true });
  const streamScript = '.hardening/stream.sh';
  await writeFile(join(root, streamScript), STREAM_SCRIPT);
  await writeFile(join(root, '.gitignore'), '.hardening/\n');

  const gitEnv = {
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'soak',
    GIT_AUTHOR_EMAIL: 'soak@example.invalid',
    GIT_COMMITTER_NAME: 'soak',
    GIT_COMMITTER_EMAIL: 'soak@example.invalid',
  };
  if (options.git) {
    const env = { ...process.env, ...gitEnv, HOME: home };
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root, env });
    execFileSync('git', ['add', '-A'], { cwd: root, env });
    execFileSync('git', ['commit', '-q', '-m', 'initial'], { cwd: root, env });
  }
  return { root, home, files, dirs, streamScript, gitEnv, remove: () => rm(base, { recursive: true, force: true }) };
}
