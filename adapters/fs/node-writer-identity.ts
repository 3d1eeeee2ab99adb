/**
 * This process's writer identity (./writer-identity.ts), set as soon as the Node file system is loaded: the pid,
 * and a tag saying which pid namespace of which boot that pid belongs to. A pid alone says nothing about a writer
 * in another container or on another machine sharing the folder (their pid 42 is not ours); the tag lets the sweep
 * judge only names from its own namespace and leave the rest to age (./leftover-sweep.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { setWriterIdentity, type WriterIdentity } from './writer-identity.ts';

/** 8 hex of boot id, pid namespace and host name; each read may fail (not Linux, no /proc; Deno without --allow-sys refuses the host name): then it counts as empty. */
export function namespaceTag(): string {
  const bootId = attempt(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
  const pidNamespace = attempt(() => readlinkSync('/proc/self/ns/pid'));
  return createHash('sha256').update(`${bootId}|${pidNamespace}|${attempt(hostname)}`).digest('hex').slice(0, 8);
}

function attempt(read: () => string): string {
  try {
    return read();
  } catch {
    return '';
  }
}

export const NODE_WRITER_IDENTITY: WriterIdentity = `${process.pid}-${namespaceTag()}`;
setWriterIdentity(NODE_WRITER_IDENTITY);
