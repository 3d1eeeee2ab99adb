/**
 * Whether the sweep may remove one of our temp entries (./leftover-names.ts). The rule never removes what a live
 * writer is still filling (docs/architecture.md#atomic-and-serialised-writes):
 *
 * - Our namespace's names: removed when their pid runs no process (or a zombie), or runs a process that started
 *   after the entry last changed — the pid was given to someone else since, the writer is gone. An entry of a
 *   live writer changed after that writer started, always; that holds for our own pid too (a second app in this
 *   process). Change time (ctime), not mtime: nothing can set it back (`utimes` moves it forward).
 * - Another namespace's names (another container or machine on a shared folder): their pid means nothing here, so
 *   only age: untouched for FOREIGN_AGE_MS.
 * - Names without an identity (older builds): untouched for OLD_NAME_AGE_MS. A live writer streaming a file keeps
 *   its change time moving.
 */
import type { LeftoverName } from './leftover-names.ts';
import type { WriterState } from './writer-liveness.ts';

export const OLD_NAME_AGE_MS = 60 * 60 * 1000;
export const FOREIGN_AGE_MS = 24 * 60 * 60 * 1000;
/**
 * /proc/stat's boot time is in whole seconds (truncated), so a start time read from it may be up to 1 s early;
 * an entry changed within this margin after the computed start counts as the live writer's.
 */
const START_TIME_SLACK_MS = 1500;

export interface VerdictContext {
  /** This process's namespace tag (./node-writer-identity.ts). */
  ownTag: string;
  nowMs: number;
  state(pid: number): WriterState;
}

export function mayRemove(name: LeftoverName, changedAtMs: number, context: VerdictContext): boolean {
  if (name.pid === undefined) return context.nowMs - changedAtMs > OLD_NAME_AGE_MS;
  if (name.tag !== context.ownTag) return context.nowMs - changedAtMs > FOREIGN_AGE_MS;
  const writer = context.state(name.pid);
  if (!writer.alive) return true;
  if (writer.startedAtMs === undefined) return false; // alive and no way to tell a reused pid: keep
  return changedAtMs < writer.startedAtMs - START_TIME_SLACK_MS;
}
