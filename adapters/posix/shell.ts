import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A terminal's shell: $SHELL when it is an executable file, else bash, else sh from PATH (ori's order). */
export function defaultShell(env: NodeJS.ProcessEnv = process.env): string {
  return usableShell(env.SHELL) ?? findOnPath('bash', env.PATH) ?? findOnPath('sh', env.PATH) ?? '/bin/sh';
}

/** A one-shot command's shell (the /ws protocol's `run_command`): $SHELL when it is an executable file, else sh. */
export function commandShell(env: NodeJS.ProcessEnv = process.env): string {
  return usableShell(env.SHELL) ?? findOnPath('sh', env.PATH) ?? '/bin/sh';
}

function usableShell(path: string | undefined): string | undefined {
  return path && isExecutableFile(path) ? path : undefined;
}

function findOnPath(program: string, path = ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
