import type { ProcessAdapter, RunCommandOptions, RunCommandResult } from './process-adapter.ts';

/** Placeholder: the real implementation replaces this file. */
export class NodeProcessAdapter implements ProcessAdapter {
  run(_options: RunCommandOptions): Promise<RunCommandResult> {
    return Promise.reject(new Error('not implemented'));
  }
  async killAll(): Promise<void> {}
}
