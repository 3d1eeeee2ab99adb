import { join } from '../../adapters/fs/posix-path.ts';
import { writerIdentity } from '../../adapters/fs/writer-identity.ts';

/**
 * The name of a hidden staging entry beside where something will land (a copy, a clone, a zip's files): written
 * there first and renamed into place once complete, so the target never shows half of it. Random, so two stagings
 * never meet. It carries the writer's identity (`.wsapi-<kind>-<pid>-<tag>-<16 hex>`, adapters/fs/writer-identity.ts)
 * so the daemon's start-up sweep can remove one a killed daemon left and never one a live daemon is filling
 * (docs/architecture.md#atomic-and-serialised-writes); where no identity is set (Workers) it has none.
 */
export function stagingName(folder: string, kind: string): string {
  const identity = writerIdentity();
  return join(folder, `.wsapi-${kind}-${identity === undefined ? '' : `${identity}-`}${randomHex(8)}`);
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}
