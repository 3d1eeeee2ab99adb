/**
 * What a test process holds right now, read from /proc (Linux): its open fds of the kinds a test can leak, its
 * inotify watches and a folder's entries (its processes: ./live-descendants.ts). The readers behind
 * test/support/leak-check.ts; each also says, for a failure message, what a leftover is (a socket's addresses, a
 * pipe's other end).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine } from './live-descendants.ts';

/**
 * The fds of this process that a test can leave open — files (a path, `/dev/pts/N` and `/dev/ptmx` included),
 * sockets, pipes and inotify instances — as fd → link target. Left out: the event loops' own plumbing (epoll,
 * eventfd, timerfd, signalfd), which every Worker thread and libuv loop opens and closes with itself.
 */
export function countedFds(): Map<number, string> {
  const fds = new Map<number, string>();
  for (const name of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${name}`);
    } catch {
      continue; // the fd readdirSync itself held, closed by now
    }
    if (target.startsWith('/') || target.startsWith('socket:') || target.startsWith('pipe:') || target === 'anon_inode:inotify') {
      fds.set(Number(name), target);
    }
  }
  return fds;
}

/** The inotify watches this process holds: per inotify fd, the watched inodes (`ino:` of fdinfo, in hex). */
export function inotifyWatchList(fds: Map<number, string>): Map<number, string[]> {
  const watches = new Map<number, string[]>();
  for (const [fd, target] of fds) {
    if (target !== 'anon_inode:inotify') continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
    } catch {
      continue;
    }
    const inodes = info
      .split('\n')
      .filter((line) => line.startsWith('inotify wd:'))
      .map((line) => line.match(/ ino:([0-9a-f]+)/)?.[1] ?? '?');
    watches.set(fd, inodes);
  }
  return watches;
}

/** The entries under `folder`, depth first, folders with a trailing `/`; at most `limit` of them. */
export function folderEntries(folder: string, limit = 20): string[] {
  const entries: string[] = [];
  const walk = (relative: string): void => {
    let names;
    try {
      names = readdirSync(join(folder, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of names) {
      if (entries.length >= limit) return;
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      entries.push(entry.isDirectory() ? `${path}/` : path);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk('');
  return entries;
}

/** `socket:[INODE]` → its addresses and state from /proc/self/net/{tcp,tcp6,udp,udp6,unix}, when found. */
export function describeSocket(target: string): string {
  const inode = target.match(/^socket:\[(\d+)\]$/)?.[1];
  if (inode === undefined) return target;
  const tcpStates: Record<string, string> = { '01': 'established', '02': 'syn-sent', '06': 'time-wait', '07': 'closed', '08': 'close-wait', '0A': 'listening' };
  for (const table of ['tcp', 'tcp6', 'udp', 'udp6']) {
    for (const line of readLines(`/proc/self/net/${table}`)) {
      const fields = line.trim().split(/\s+/);
      if (fields[9] !== inode) continue;
      const state = table.startsWith('tcp') ? ` ${tcpStates[fields[3] ?? ''] ?? `state ${fields[3]}`}` : '';
      return `${target} ${table} ${address(fields[1])} -> ${address(fields[2])}${state}`;
    }
  }
  for (const line of readLines('/proc/self/net/unix')) {
    const fields = line.trim().split(/\s+/);
    if (fields[6] === inode) return `${target} unix ${fields[7] ?? '(unnamed)'}`;
  }
  return target;
}

/** `pipe:[INODE]` → the other processes that hold the same pipe, e.g. `held by 123 (cat)`. */
export function describePipe(target: string): string {
  const holders: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${name}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    const holds = fds.some((fd) => {
      try {
        return readlinkSync(`/proc/${name}/fd/${fd}`) === target;
      } catch {
        return false;
      }
    });
    if (holds) holders.push(`${name} (${commandLine(Number(name), '?')})`);
  }
  return holders.length === 0 ? `${target} (no other process holds it)` : `${target} also held by ${holders.join(', ')}`;
}

function readLines(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(1);
  } catch {
    return [];
  }
}

/** `0100007F:1F90` (little-endian hex, /proc/net/tcp) → `127.0.0.1:8080`; IPv6 stays hex but for the port. */
function address(hex: string | undefined): string {
  if (hex === undefined) return '?';
  const [host = '', port = ''] = hex.split(':');
  const portNumber = Number.parseInt(port, 16);
  if (host.length === 8) {
    const bytes = host.match(/../g)!.map((byte) => Number.parseInt(byte, 16)).reverse();
    return `${bytes.join('.')}:${portNumber}`;
  }
  return `[${host}]:${portNumber}`;
}
