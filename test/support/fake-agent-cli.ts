/**
 * Fake agent CLIs for the agent-chat tests: ./fake-agent.cjs installed as an executable `opencode` or `kilo`
 * (run by this very Node, whatever PATH says), and the records it leaves behind, read back. The real CLIs talk to
 * model providers; the fake plays scripted output and reports exactly what the daemon gave it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './processes.ts';

export type AgentName = 'opencode' | 'kilo';

/** The environment variable naming the records folder (set on the daemon's env, inherited by every fake). */
export const RECORDS_ENV = 'FAKE_AGENT_RECORDS';

/** How one installed fake behaves; read again at each start, so `configure` takes effect on the next one. */
export interface FakeAgentConfig {
  /** What `run --help` prints (default `<name> run [message..]` and a line of usage, as the real CLIs do). */
  help?: string;
  /**
   * `serve --port 0`: `listen` (default) prints its URL; `no-port-exit` prints a line without one and exits;
   * `no-port-hang` prints a line without one and runs on.
   */
  serve?: 'listen' | 'no-port-exit' | 'no-port-hang';
  /** Lines `serve` prints before its URL line (none look like `127.0.0.1:<port>`). */
  junkLines?: number;
  /** `serve` listens but prints its URL only once `AgentRecords.releaseServe()` was called. */
  holdPort?: boolean;
}

export interface FakeAgent {
  name: AgentName;
  /** The executable's absolute path (what a run records as `exe`). */
  path: string;
  configure(config: FakeAgentConfig): Promise<void>;
}

const SCRIPT = readFileSync(fileURLToPath(new URL('./fake-agent.cjs', import.meta.url)), 'utf8');

/** Installs the fake as `<folder>/<name>` (folder created), mode 755. */
export async function writeFakeAgent(folder: string, name: AgentName, config: FakeAgentConfig = {}): Promise<FakeAgent> {
  await mkdir(folder, { recursive: true });
  const path = join(folder, name);
  await writeFile(path, `#!${process.execPath}\n${SCRIPT}`);
  await chmod(path, 0o755);
  const agent: FakeAgent = {
    name,
    path,
    configure: (next) => writeFile(`${path}.json`, JSON.stringify(next)),
  };
  await agent.configure(config);
  return agent;
}

/** Who a fake process was, as it saw itself. */
export interface ProcessRecord {
  exe: string;
  argv: string[];
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  cwd: string;
  /** Where fds 0, 1 and 2 lead: a path such as `/dev/null`, or `pipe` for a pipe or socket pair. */
  fds: [string, string, string];
  env: Record<string, string>;
}

export interface AttachmentRecord {
  path: string;
  mode: number;
  folderMode: number;
  base64: string;
}

export interface RunRecord extends ProcessRecord {
  /** The argument that named the scenario (`lines chat-7`), or null when none did (`hello` played). */
  prompt: string | null;
  scenario: string;
  /** Each `-f` file, read when the run started. */
  files: AttachmentRecord[];
  /** `spawnchild`: the pid of the child left running in the run's group. */
  grandchild?: number;
}

export interface ServeRecord extends ProcessRecord {
  /** Absent for the scripts that never listen. */
  port?: number;
}

export interface Invocation {
  exe: string;
  argv: string[];
  pid: number;
  env: Record<string, string>;
}

/** The records folder the fakes write to (fresh and empty per fixture). */
export class AgentRecords {
  constructor(readonly dir: string) {}

  static async create(dir: string): Promise<AgentRecords> {
    await mkdir(dir, { recursive: true });
    return new AgentRecords(dir);
  }

  runs(): RunRecord[] {
    return this.#read<RunRecord>('run-');
  }

  serves(): ServeRecord[] {
    return this.#read<ServeRecord>('serve-');
  }

  /** Every start of a fake, in order: probes (`run --help`), servers and runs. */
  invocations(): Invocation[] {
    let text = '';
    try {
      text = readFileSync(join(this.dir, 'invocations.jsonl'), 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Invocation);
  }

  /** The identity probes (`<exe> run --help`), in order, as the executables probed. */
  probes(): string[] {
    return this.invocations()
      .filter((invocation) => invocation.argv.join(' ') === 'run --help')
      .map((invocation) => invocation.exe);
  }

  /** The run whose prompt is `prompt`, if it started. */
  run(prompt: string): RunRecord | undefined {
    return this.runs().find((run) => run.prompt === prompt);
  }

  waitForRun(prompt: string, timeoutMs = 10_000): Promise<RunRecord> {
    return waitFor(() => this.run(prompt), { timeoutMs, what: `the run of '${prompt}'` });
  }

  /** Whether any fake started with `prompt` among its arguments (a run that died before recording counts too). */
  started(prompt: string): boolean {
    return this.invocations().some((invocation) => invocation.argv.includes(prompt));
  }

  waitForServe(timeoutMs = 10_000): Promise<ServeRecord> {
    return waitFor(() => this.serves()[0], { timeoutMs, what: 'an agent server to start' });
  }

  /** Lets a `holdPort` server print its URL. */
  releaseServe(): Promise<void> {
    return writeFile(join(this.dir, 'release-serve'), '');
  }

  /** Forgets the release (the next `holdPort` server holds again). */
  holdServe(): Promise<void> {
    return rm(join(this.dir, 'release-serve'), { force: true });
  }

  /** The records named `<prefix><pid>.json`, in the order their processes started. */
  #read<T extends ProcessRecord>(prefix: string): T[] {
    const order = this.invocations().map((invocation) => invocation.pid);
    return readdirSync(this.dir)
      .filter((file) => file.startsWith(prefix) && file.endsWith('.json'))
      .map((file) => JSON.parse(readFileSync(join(this.dir, file), 'utf8')) as T)
      .sort((a, b) => order.lastIndexOf(a.pid) - order.lastIndexOf(b.pid));
  }
}

/** An attachment's bytes as the run read them. */
export function attachmentBytes(file: AttachmentRecord): Buffer {
  return Buffer.from(file.base64, 'base64');
}
