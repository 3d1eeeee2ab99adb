/**
 * The Node side of agent chat (./chat-host.ts): agent CLIs started with node:child_process, each the leader of a
 * session of its own (`detached: true` calls setsid), stdin on /dev/null; stopping one signals its group and
 * everything left in its session (../posix/session-signals.ts), as `run_command` does. Attachments go into a
 * fresh `mkdtemp` folder (0700) as 0600 files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { childEnv } from '../posix/child-env.ts';
import { sessionAlive, signalSession, terminateSession } from '../posix/session-signals.ts';
import type { ChatHost, ChatPipe, ChatProcess, ChatSpawnOptions, ChatTempFolder } from './chat-host.ts';

export interface NodeChatHostOptions {
  /** The environment children inherit and `PATH` is read from (default: the daemon's, read at each use). */
  env?: NodeJS.ProcessEnv;
  /** The home folder (default: `HOME` of that environment, else the OS's). */
  home?: string;
  /** Where attachment folders are made (default: the OS temp folder). */
  tempDir?: string;
}

export class NodeChatHost implements ChatHost {
  readonly #env: NodeJS.ProcessEnv | undefined;
  readonly #tempDir: string | undefined;
  readonly home: string | undefined;

  constructor(options: NodeChatHostOptions = {}) {
    this.#env = options.env;
    this.#tempDir = options.tempDir;
    this.home = options.home ?? (options.env ?? process.env).HOME ?? homedir();
  }

  baseEnv(): Record<string, string> {
    return childEnv(this.#env ?? process.env);
  }

  async spawn(options: ChatSpawnOptions): Promise<ChatProcess> {
    const child = spawn(options.file, [...options.args], {
      cwd: options.cwd,
      env: { ...options.env },
      detached: true,
      stdio: ['ignore', 'pipe', options.stderr === 'pipe' ? 'pipe' : 'ignore'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.on('error', () => {}); // a signal to a process that just exited: the outcome is known from 'exit'
    return new NodeChatProcess(child);
  }

  async listFolders(folder: string): Promise<string[]> {
    try {
      const entries = await readdir(folder, { withFileTypes: true });
      return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
    } catch {
      return [];
    }
  }

  async isExecutableFile(path: string): Promise<boolean> {
    try {
      if (!(await stat(path)).isFile()) return false;
      await access(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }

  async tempFolder(): Promise<ChatTempFolder> {
    const path = await mkdtemp(join(this.#tempDir ?? tmpdir(), 'wsapi-chat-'));
    return {
      path,
      async write(name, bytes) {
        const file = join(path, name);
        await writeFile(file, bytes, { mode: 0o600, flag: 'wx' });
        return file;
      },
      remove: () => rm(path, { recursive: true, force: true }),
    };
  }
}

class NodeChatProcess implements ChatProcess {
  readonly pid: number;
  readonly stdout: ChatPipe;
  readonly stderr: ChatPipe | undefined;
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  #hasExited = false;

  constructor(child: ChildProcess) {
    this.pid = child.pid!;
    this.stdout = pipeOf(child.stdout!);
    this.stderr = child.stderr ? pipeOf(child.stderr) : undefined;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#hasExited = true;
        resolve({ code, signal });
      });
    });
  }

  signal(signal: 'SIGTERM' | 'SIGKILL'): void {
    signalSession(this.pid, signal);
  }

  alive(): boolean {
    // Read from /proc, not from the 'exit' event: a process killed a moment ago is seen dead (a zombie counts as
    // gone) before the event loop has reaped it.
    return sessionAlive(this.pid);
  }

  stop(graceMs: number): Promise<void> {
    return terminateSession(this.pid, { signal: 'SIGTERM', graceMs, hasExited: () => this.#hasExited, exited: this.exited });
  }
}

function pipeOf(stream: Readable): ChatPipe {
  stream.on('error', () => {}); // a read error ends the pipe: 'close' follows
  return {
    onData: (listener) => void stream.on('data', (chunk: Buffer) => listener(chunk)),
    onEnd: (listener) => {
      let ended = false;
      const once = () => {
        if (!ended) {
          ended = true;
          listener();
        }
      };
      stream.once('end', once);
      stream.once('close', once);
    },
    pause: () => void stream.pause(),
    resume: () => void stream.resume(),
    destroy: () => void stream.destroy(),
  };
}
