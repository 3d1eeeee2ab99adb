import { access, constants, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import type { CommandLookup } from '../../core/projects/command-lookup.ts';

/**
 * "Is this command on PATH?" as a shell's lookup answers it: an executable regular file named `name` in one of the
 * PATH folders (read at each call, so a changed PATH counts). Only a bare name is looked up: a name with a `/` is
 * never a PATH command.
 */
export class NodeCommandLookup implements CommandLookup {
  readonly #env: NodeJS.ProcessEnv | undefined;

  constructor(options: { env?: NodeJS.ProcessEnv } = {}) {
    this.#env = options.env;
  }

  async hasCommand(name: string): Promise<boolean> {
    if (name === '' || name.includes('/') || name.includes('\0')) return false;
    const folders = ((this.#env ?? process.env).PATH ?? '').split(delimiter).filter((folder) => isAbsolute(folder));
    for (const folder of folders) {
      const candidate = join(folder, name);
      try {
        if (!(await stat(candidate)).isFile()) continue;
        await access(candidate, constants.X_OK);
        return true;
      } catch {
        // not here (or not executable): the next folder
      }
    }
    return false;
  }
}
