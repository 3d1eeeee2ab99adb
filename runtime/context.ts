import type { FileSystem } from '../adapters/fs/file-system.ts';
import type { PtyAdapter } from '../adapters/pty/pty-adapter.ts';
import type { Upgrader } from './websocket.ts';

/** Caps that keep one request from exhausting the daemon. */
export interface Limits {
  /** Largest request body accepted (bytes). */
  maxBodyBytes: number;
  /** Largest file `GET /api/file` returns (seed 000: 5 MiB). */
  maxTextFileBytes: number;
  /** Search walk: stop after this many directory entries (seed 000: 50 000). */
  maxSearchEntries: number;
}

export const defaultLimits: Limits = {
  maxBodyBytes: 16 * 1024 * 1024,
  maxTextFileBytes: 5 * 1024 * 1024,
  maxSearchEntries: 50_000,
};

/** What the runtime hands to every handler: storage, the root, limits and the optional Node-only adapters. */
export interface WorkspaceContext {
  readonly fs: FileSystem;
  /** The workspace root as an absolute real path (symlinks resolved). */
  readonly root: string;
  /** Seed 000's "absolute paths are used as-is": containment is off. */
  readonly unrestricted: boolean;
  readonly limits: Limits;
  /** The user's home folder (for `~/.claude/skills`); absent on runtimes without one. */
  readonly home: string | undefined;
  /** Pseudo-terminals (Node only). */
  readonly pty: PtyAdapter | undefined;
  /** Accepts a WebSocket upgrade for this request; absent when the runtime or request cannot upgrade. */
  readonly upgrade: Upgrader | undefined;
  /** Resolves a client path to an absolute real path inside the root (runtime/paths/resolve-inside-root.ts). */
  resolve(path: string): Promise<string>;
}

export type Handler = (request: Request, ctx: WorkspaceContext) => Response | Promise<Response>;
