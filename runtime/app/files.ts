import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { ObservedFileSystem, type Observation } from '../../adapters/fs/observed-file-system.ts';
import { normalize } from '../../adapters/fs/posix-path.ts';
import { SerializedFileSystem } from '../../adapters/fs/serialized-file-system.ts';
import { agentsFolder, createAgentCopies } from '../../core/agents/agent-copies.ts';
import type { AgentCopies } from '../../core/agents/workspace-view.ts';
import type { Limits } from '../context.ts';
import type { WorkspaceAppOptions } from './app-options.ts';

/** The storage every request and engine goes through, the root's real path, and the agents' copies. */
export interface FilesPart {
  fs: FileSystem;
  /** The root's real path (resolved once; a missing root answers its normalised path and is retried). */
  rootPath(): Promise<string>;
  /** The root's real path once `rootPath` has resolved it. */
  knownRoot(): string | undefined;
  agents: AgentCopies;
  /** Folders no walk of the shared tree enters (the agents' copies), as real paths. */
  excluded(): Promise<string[]>;
}

/**
 * Writers to one path run one at a time, so two conditional writes through the daemon never both win
 * (adapters/fs/serialized-file-system.ts). Inside the serialiser, the observer: every mutation is reported
 * (`observe`) before it resolves and while it still holds its path's lock, so two writes to one path are reported
 * in the order they landed (outside the lock, the first write's report could arrive after the second's and leave
 * a stale version).
 */
export function buildFiles(options: WorkspaceAppOptions, limits: Limits, observe: (change: Observation) => void): FilesPart {
  const fs: FileSystem = new SerializedFileSystem(new ObservedFileSystem(options.fs, observe));
  let realRoot: string | undefined;
  async function rootPath(): Promise<string> {
    if (realRoot) return realRoot;
    try {
      realRoot = await fs.realpath(options.root);
      return realRoot;
    } catch {
      return normalize(options.root); // missing root: handlers answer 404; retried on the next request
    }
  }
  const agents = createAgentCopies({
    fs,
    root: rootPath,
    configuredRoot: options.root,
    dir: agentsFolder(options.root, options.agentsDir),
    unrestricted: options.unrestricted ?? false,
    worktrees: options.worktrees,
    copyCaps: { maxEntries: limits.maxCopyEntries, maxBytes: limits.maxCopyBytes },
  });
  return {
    fs,
    rootPath,
    knownRoot: () => realRoot,
    agents,
    async excluded() {
      await agents.view(undefined); // resolves `agents.dir` to its real path
      return [agents.dir];
    },
  };
}
