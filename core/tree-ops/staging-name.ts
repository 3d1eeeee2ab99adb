import { join } from '../../adapters/fs/posix-path.ts';

/**
 * The name of a hidden staging entry beside where something will land (a copy, a clone): written there first and
 * renamed into place once complete, so the target never shows half of it. Random, so two stagings never meet.
 */
export function stagingName(folder: string, kind: string): string {
  return join(folder, `.wsapi-${kind}-${randomHex(8)}`);
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}
