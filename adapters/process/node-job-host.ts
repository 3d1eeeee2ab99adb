import type { JobHost } from '../../core/jobs/job-host.ts';
import { childEnv } from '../posix/child-env.ts';
import { freePort } from './free-port.ts';
import { probeHttp } from './http-probe.ts';
import { killProcessTree } from './process-tree.ts';

/** The job engine's Node powers (core/jobs/job-host.ts explains each). */
export class NodeJobHost implements JobHost {
  readonly #env: NodeJS.ProcessEnv | undefined;

  /** `env`: the daemon's environment to start from (default: process.env, read at each job). */
  constructor(options: { env?: NodeJS.ProcessEnv } = {}) {
    this.#env = options.env;
  }

  env(cwd: string, extra: Record<string, string> = {}): Record<string, string> {
    const env = childEnv(this.#env ?? process.env);
    for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key];
    const bin = `${cwd === '/' ? '' : cwd}/node_modules/.bin`;
    env.PATH = env.PATH ? `${bin}:${env.PATH}` : bin;
    return { ...env, ...extra };
  }

  freePort(): Promise<number> {
    return freePort();
  }

  killTree(pid: number, options: { graceMs: number }): Promise<void> {
    return killProcessTree(pid, options);
  }

  probe(port: number, timeoutMs: number): Promise<boolean> {
    return probeHttp(port, timeoutMs);
  }
}
