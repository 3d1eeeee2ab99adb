/**
 * Finding an agent's CLI (docs/noide-protocol.md#chat_check_install): the executables named like the agent, in
 * the documented order — its own install folder, each nvm-installed Node's bin, `$PATH`, `~/.local/bin`, the
 * other agent's folder — and the first whose `run --help` names it (a line starting `<agent> run [`, leading
 * whitespace and control characters dropped). `chat_check_install` and `chat_stream` use the same lookup.
 */
import type { ChatHost, ChatProcess } from '../../adapters/process/chat-host.ts';
import { INSTALL_FOLDERS, otherAgent } from './agents.ts';
import { probeEnv } from './chat-env.ts';
import type { ChatAgent } from './chat-types.ts';

export type AgentLookup = { found: true; path: string } | { found: false; reason: 'missing' | 'wrong' };

/** What a help text may print before the identity line is given up on. */
const MAX_PROBE_OUTPUT = 256 * 1024;

export interface FindAgentOptions {
  /** The probe's limit, ms. */
  probeTimeoutMs: number;
  /** Where the probe runs. */
  cwd: string;
}

export async function findAgent(host: ChatHost, agent: ChatAgent, options: FindAgentOptions): Promise<AgentLookup> {
  let sawExecutable = false;
  const tried = new Set<string>();
  for (const candidate of await candidates(host, agent)) {
    if (tried.has(candidate)) continue;
    tried.add(candidate);
    if (!(await host.isExecutableFile(candidate))) continue;
    sawExecutable = true;
    if (await namesItself(host, candidate, agent, options)) return { found: true, path: candidate };
  }
  return { found: false, reason: sawExecutable ? 'wrong' : 'missing' };
}

async function candidates(host: ChatHost, agent: ChatAgent): Promise<string[]> {
  const home = host.home;
  const inHome = (folder: string) => (home === undefined ? [] : [`${home}/${folder}/${agent}`]);
  const nvm = home === undefined ? [] : (await host.listFolders(`${home}/.nvm/versions/node`)).map((version) => `${home}/.nvm/versions/node/${version}/bin/${agent}`);
  const path = (host.baseEnv().PATH ?? '').split(':').filter((folder) => folder.startsWith('/')).map((folder) => `${folder.replace(/\/+$/, '')}/${agent}`);
  return [...inHome(INSTALL_FOLDERS[agent]), ...nvm, ...path, ...inHome('.local/bin'), ...inHome(INSTALL_FOLDERS[otherAgent(agent)])];
}

/** Runs `<candidate> run --help` and reads its output for the agent's own usage line. */
async function namesItself(host: ChatHost, candidate: string, agent: ChatAgent, options: FindAgentOptions): Promise<boolean> {
  let process: ChatProcess;
  try {
    process = await host.spawn({ file: candidate, args: ['run', '--help'], cwd: options.cwd, env: probeEnv(host.baseEnv()), stderr: 'pipe' });
  } catch {
    return false; // cannot run (a script whose interpreter is missing): not the agent
  }
  const usage = `${agent} run [`;
  return new Promise<boolean>((resolve) => {
    let settled = false;
    let seen = 0;
    let open = 2;
    const text: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };
    const decoder = { stdout: new TextDecoder(), stderr: new TextDecoder() };
    const finish = (answer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      process.stdout.destroy();
      process.stderr?.destroy();
      if (process.alive()) process.signal('SIGKILL');
      resolve(answer);
    };
    const timer = setTimeout(() => finish(false), options.probeTimeoutMs);
    for (const stream of ['stdout', 'stderr'] as const) {
      const pipe = process[stream]!;
      pipe.onData((chunk) => {
        seen += chunk.length;
        text[stream] += decoder[stream].decode(chunk, { stream: true });
        if (hasUsageLine(text[stream], usage)) finish(true);
        else if (seen > MAX_PROBE_OUTPUT) finish(false);
      });
      pipe.onEnd(() => {
        if (--open === 0) void process.exited.then(() => finish(hasUsageLine(text.stdout, usage) || hasUsageLine(text.stderr, usage)));
      });
    }
  });
}

function hasUsageLine(text: string, usage: string): boolean {
  return text.split('\n').some((line) => line.replace(/^[\s\0-\x1f\x7f]+/, '').startsWith(usage));
}
