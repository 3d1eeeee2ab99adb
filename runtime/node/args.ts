import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { generateToken, type AuthConfig } from '../auth.ts';
import { defaultLimits } from '../context.ts';
import { isLoopbackHost } from '../hosts.ts';
import { DEFAULT_ACCEPTORS, MAX_ACCEPTORS } from './extra-acceptors.ts';

export const USAGE = `Usage: workspace-api [options]
       workspace-api token --scope read|agent:ID [--ttl DURATION]   (a scoped token; see token --help)

Serves one folder (the workspace root) to web UIs and agents: files, search and terminals.

Options:
  --cwd DIR             workspace root (default: the current folder)
  --host HOST           interface to bind (default: 127.0.0.1)
  --port PORT           port to bind (default: 8787; 0 picks a free port)
  --token TOKEN         require this token (default: $WORKSPACE_TOKEN, else a generated one)
  --no-auth             require no token (only on a loopback host)
  --unrestricted        use absolute paths as given instead of confining them to the root
  --no-watch            do not watch the root for changes made outside the API (the change feed then reports
                        the API's own writes only)
  --allow-origin URL    let this browser origin call the API and open WebSockets ("*" for any); repeatable
  --agents-dir DIR      where agents' private copies live (default: .agents under the root); relative to the
                        current folder; must not contain the root
  --media-ticket-ttl SECONDS
                        how long a media ticket (/workspace/media-ticket) stays valid (default: 3600, at most 604800)
  --command-timeout SECONDS
                        run_command (/ws): kill a command still running after this long (default: 120, at most 86400)
  --command-output-cap BYTES
                        run_command (/ws): keep this many bytes of a command's output, then kill it (default: 16777216,
                        i.e. 16 MiB; at most 268435456)
  --max-terminals N     terminal sessions that may run at once (default: 64, at most 1024)
  --terminal-buffer BYTES
                        output each terminal keeps for replay (default: 1048576, i.e. 1 MiB; 4096 to 67108864)
  --terminal-reap SECONDS
                        forget an exited terminal nobody is attached to after this long (default: 1800)
  --index-dir DIR       where the search index is cached between runs (default: $XDG_CACHE_HOME/workspace-api/,
                        else ~/.cache/workspace-api/, one folder per workspace); must be outside the root
  --no-index            build no search index: every search scans the files (slower on big trees, no cache)
  --embeddings-url URL  an OpenAI-compatible embeddings server (Ollama, llama.cpp: e.g. http://127.0.0.1:11434)
                        that re-ranks prose searches; its key, if any, from $WORKSPACE_EMBEDDINGS_KEY
  --embeddings-model NAME
                        the model to ask it for (default: nomic-embed-text)
  --max-chats N         agent chats (/ws chat_stream) that may run at once (default: 16, at most 256)
  --chat-timeout SECONDS
                        stop an agent chat still running after this long (default: 1800, at most 86400)
  --chat-models-url AGENT=URL
                        chat_models (/ws): where AGENT's model list is asked for (opencode: OpenRouter,
                        default https://openrouter.ai; kilo: the Kilo gateway, default https://api.kilo.ai); repeatable
  --preview-url PATTERN an app's previewUrl while its dev server runs (default: http://<request host>:<port>/);
                        {repo} {app} {panel} (= <repo>--<app>) {port} are filled in, e.g.
                        https://preview-{panel}-abc.example.dev
  --acceptors N         handles taking new connections on the listening socket (default: 32, at most 64): each
                        takes one per event-loop turn, so a busy daemon still admits a burst of clients quickly
  --no-panel            serve no web panel at / and no API reference at /docs (the API only)
  -h, --help            show this help
`;

/** A command-line mistake: printed with a hint, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly exitCode = 2;
}

export interface CliConfig {
  /** Real path of --cwd. */
  root: string;
  host: string;
  port: number;
  auth: AuthConfig;
  /** Where the token came from; a generated one has to be shown to the user. */
  tokenSource: 'flag' | 'env' | 'generated' | 'none';
  unrestricted: boolean;
  /** Watch the root with the OS watcher (off with `--no-watch`). */
  watch: boolean;
  allowedOrigins: string[];
  /** `--agents-dir`, absolute (undefined: the default, `.agents` under the root). */
  agentsDir?: string;
  /** `--preview-url`: an app's previewUrl pattern (core/jobs/dev-servers.ts). */
  previewUrl?: string;
  /** Media tickets' lifetime (`--media-ticket-ttl`, given in seconds). */
  mediaTicketTtlMs: number;
  /** `run_command`'s deadline (`--command-timeout`, given in seconds) and output cap (`--command-output-cap`). */
  commandTimeoutMs: number;
  commandOutputCap: number;
  /** Terminals: running sessions (`--max-terminals`), each one's replay ring (`--terminal-buffer`), reaping (`--terminal-reap`). */
  maxTerminals: number;
  terminalRingBytes: number;
  terminalReapMs: number;
  /** The search index's cache folder (`--index-dir`, absolute; undefined: the default) and `--no-index`. */
  indexDir?: string;
  noIndex: boolean;
  /** Serve the web panel at `/` and the API reference at `/docs` (off with `--no-panel`). */
  panel: boolean;
  /** `--embeddings-url` and `--embeddings-model` ($WORKSPACE_EMBEDDINGS_KEY as the key). */
  embeddings?: { url: string; model: string; apiKey?: string };
  /** Agent chat: chats at once (`--max-chats`), a chat's lifetime (`--chat-timeout`, in seconds), `--chat-models-url`. */
  maxChats: number;
  chatTimeoutMs: number;
  chatModelsUrls: { opencode?: string; kilo?: string };
  /** Handles accepting connections on the listening socket (`--acceptors`): runtime/node/extra-acceptors.ts. */
  acceptors: number;
}

export type CliCommand = { help: true } | { help: false; config: CliConfig };

const portSchema = z
  .string()
  .regex(/^\d+$/, 'must be a whole number')
  .transform(Number)
  .pipe(z.number().max(65535, 'must be at most 65535'));

/** A flag's whole number of `unit`s (plural) from 1 to `max`; the messages name the unit and `maxNote` says why. */
function wholeNumberFlag(unit: string, max: number, maxNote: string) {
  return z
    .string()
    .regex(/^\d+$/, `must be a whole number of ${unit}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(1, `must be at least 1 ${unit.replace(/s$/, '')}`)
        .max(max, `must be at most ${max} ${unit} (${maxNote})`),
    );
}

/** A media ticket is a bearer pass to one file: a week is the longest one may be made to live. */
const MAX_MEDIA_TICKET_TTL_SECONDS = 7 * 24 * 60 * 60;
const ttlSecondsSchema = wholeNumberFlag('seconds', MAX_MEDIA_TICKET_TTL_SECONDS, '7 days');

/** A one-shot command that needs more than a day belongs in a named terminal. */
const MAX_COMMAND_TIMEOUT_SECONDS = 24 * 60 * 60;
/** The output travels back as one string in one frame: past this it nears V8's longest string. */
const MAX_COMMAND_OUTPUT_CAP = 256 * 1024 * 1024;

/** Each terminal is a process tree and a ring: past this many the machine, not the daemon, is the limit. */
const MAX_TERMINALS = 1024;
/** A ring below one screenful replays nothing useful; past 64 MiB, 64 of them are the daemon's memory. */
const MIN_TERMINAL_BUFFER = 4096;
const MAX_TERMINAL_BUFFER = 64 * 1024 * 1024;
const MAX_TERMINAL_REAP_SECONDS = 7 * 24 * 60 * 60;
/** Each chat is a CLI process tree (an agent runtime of ~100 MiB): past this many, the machine is the limit. */
const MAX_CHATS = 256;
const MAX_CHAT_TIMEOUT_SECONDS = 24 * 60 * 60;

/** `AGENT=URL` with an agent chat knows and an http(s) base URL. */
const chatModelsUrlSchema = z.string().transform((value, ctx) => {
  const at = value.indexOf('=');
  const agent = value.slice(0, at);
  const url = value.slice(at + 1);
  if (at < 0 || (agent !== 'opencode' && agent !== 'kilo')) {
    ctx.addIssue({ code: 'custom', message: `'${value}' is not AGENT=URL with AGENT opencode or kilo` });
    return z.NEVER;
  }
  if (!/^https?:\/\//.test(url) || !URL.canParse(url)) {
    ctx.addIssue({ code: 'custom', message: `'${url}' is not an http(s) URL such as https://openrouter.ai` });
    return z.NEVER;
  }
  return [agent, url] as const;
});

const originSchema = z.string().transform((value, ctx) => {
  if (value === '*') return value;
  try {
    const url = new URL(value);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== 'null') return url.origin;
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: `'${value}' is not an http(s) origin such as https://ide.example` });
  return z.NEVER;
});

/** What Ollama's docs use for retrieval; any model the server has can be named instead. */
const DEFAULT_EMBEDDINGS_MODEL = 'nomic-embed-text';

const flagsSchema = z.object({
  cwd: z.string().min(1, 'must not be empty').optional(),
  host: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  port: portSchema.default(8787),
  token: z.string().min(1, 'must not be empty').optional(),
  'no-auth': z.boolean().default(false),
  unrestricted: z.boolean().default(false),
  'no-watch': z.boolean().default(false),
  'allow-origin': z.array(originSchema).default([]),
  'agents-dir': z.string().min(1, 'must not be empty').optional(),
  'media-ticket-ttl': ttlSecondsSchema.default(defaultLimits.mediaTicketTtlMs / 1000),
  'command-timeout': wholeNumberFlag('seconds', MAX_COMMAND_TIMEOUT_SECONDS, '1 day').default(defaultLimits.commandTimeoutMs / 1000),
  'command-output-cap': wholeNumberFlag('bytes', MAX_COMMAND_OUTPUT_CAP, '256 MiB').default(defaultLimits.commandOutputCap),
  'max-terminals': wholeNumberFlag('terminals', MAX_TERMINALS, 'each is a process tree').default(defaultLimits.maxTerminals),
  'terminal-buffer': wholeNumberFlag('bytes', MAX_TERMINAL_BUFFER, '64 MiB')
    .pipe(z.number().min(MIN_TERMINAL_BUFFER, `must be at least ${MIN_TERMINAL_BUFFER} bytes`))
    .default(defaultLimits.terminalRingBytes),
  'terminal-reap': wholeNumberFlag('seconds', MAX_TERMINAL_REAP_SECONDS, '7 days').default(defaultLimits.terminalReapMs / 1000),
  'index-dir': z.string().min(1, 'must not be empty').optional(),
  'no-index': z.boolean().default(false),
  'embeddings-url': z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:11434' })
    .optional(),
  'embeddings-model': z.string().min(1, 'must not be empty').default(DEFAULT_EMBEDDINGS_MODEL),
  'preview-url': z.string().min(1, 'must not be empty').optional(),
  'max-chats': wholeNumberFlag('chats', MAX_CHATS, 'each is an agent CLI process tree').default(defaultLimits.maxChats),
  acceptors: wholeNumberFlag('handles', MAX_ACCEPTORS, 'each is a descriptor woken by every connection').default(DEFAULT_ACCEPTORS),
  'chat-timeout': wholeNumberFlag('seconds', MAX_CHAT_TIMEOUT_SECONDS, '1 day').default(defaultLimits.chatTimeoutMs / 1000),
  'chat-models-url': z.array(chatModelsUrlSchema).default([]),
  'no-panel': z.boolean().default(false),
  help: z.boolean().default(false),
});

/**
 * Parses and validates the command line. Throws UsageError for anything the user has to fix: unknown flags,
 * bad values, a --cwd that is not a folder, or a non-loopback host without a token.
 */
export async function parseCliArgs(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): Promise<CliCommand> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        cwd: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        token: { type: 'string' },
        'no-auth': { type: 'boolean' },
        unrestricted: { type: 'boolean' },
        'no-watch': { type: 'boolean' },
        'allow-origin': { type: 'string', multiple: true },
        'agents-dir': { type: 'string' },
        'media-ticket-ttl': { type: 'string' },
        'command-timeout': { type: 'string' },
        'command-output-cap': { type: 'string' },
        'max-terminals': { type: 'string' },
        'terminal-buffer': { type: 'string' },
        'terminal-reap': { type: 'string' },
        'index-dir': { type: 'string' },
        'no-index': { type: 'boolean' },
        'embeddings-url': { type: 'string' },
        'embeddings-model': { type: 'string' },
        'preview-url': { type: 'string' },
        'max-chats': { type: 'string' },
        'chat-timeout': { type: 'string' },
        'chat-models-url': { type: 'string', multiple: true },
        'no-panel': { type: 'boolean' },
        acceptors: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }

  const parsed = flagsSchema.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`--${String(issue.path[0] ?? '')}: ${issue.message}`);
  }
  const flags = parsed.data;
  if (flags.help) return { help: true };

  const host = flags.host.replace(/^\[(.*)\]$/, '$1');
  const envToken = env.WORKSPACE_TOKEN || undefined;
  if (flags['no-auth'] && flags.token !== undefined) throw new UsageError('--token and --no-auth contradict each other');

  let auth: AuthConfig;
  let tokenSource: CliConfig['tokenSource'];
  if (flags['no-auth']) {
    if (!isLoopbackHost(host)) {
      throw new UsageError(`refusing to serve ${host} without a token: drop --no-auth or bind a loopback host such as 127.0.0.1`);
    }
    auth = { disabled: true };
    tokenSource = 'none';
  } else if (flags.token !== undefined) {
    auth = { token: flags.token };
    tokenSource = 'flag';
  } else if (envToken !== undefined) {
    auth = { token: envToken };
    tokenSource = 'env';
  } else {
    auth = { token: generateToken() };
    tokenSource = 'generated';
  }

  const root = await workspaceRoot(resolve(cwd, flags.cwd ?? '.'));
  const agentsDir = flags['agents-dir'] === undefined ? undefined : await agentsFolder(resolve(cwd, flags['agents-dir']), root);
  const indexDir = flags['index-dir'] === undefined ? undefined : (await realFolderPath(resolve(cwd, flags['index-dir']), '--index-dir')).real;
  if (indexDir !== undefined && (indexDir === root || indexDir.startsWith(root === sep ? root : root + sep))) {
    throw new UsageError(`--index-dir ${indexDir}: inside the workspace root; the index must live outside it`);
  }
  if (flags['no-index'] && indexDir !== undefined) throw new UsageError('--index-dir and --no-index contradict each other');
  const embeddingsKey = env.WORKSPACE_EMBEDDINGS_KEY || undefined;
  return {
    help: false,
    config: {
      root,
      host,
      port: flags.port,
      auth,
      tokenSource,
      unrestricted: flags.unrestricted,
      watch: !flags['no-watch'],
      allowedOrigins: flags['allow-origin'],
      mediaTicketTtlMs: flags['media-ticket-ttl'] * 1000,
      commandTimeoutMs: flags['command-timeout'] * 1000,
      commandOutputCap: flags['command-output-cap'],
      maxTerminals: flags['max-terminals'],
      terminalRingBytes: flags['terminal-buffer'],
      terminalReapMs: flags['terminal-reap'] * 1000,
      ...(agentsDir === undefined ? {} : { agentsDir }),
      ...(indexDir === undefined ? {} : { indexDir }),
      noIndex: flags['no-index'],
      panel: !flags['no-panel'],
      maxChats: flags['max-chats'],
      chatTimeoutMs: flags['chat-timeout'] * 1000,
      chatModelsUrls: Object.fromEntries(flags['chat-models-url']),
      acceptors: flags.acceptors,
      ...(flags['preview-url'] === undefined ? {} : { previewUrl: flags['preview-url'] }),
      ...(flags['embeddings-url'] === undefined
        ? {}
        : {
            embeddings: {
              url: flags['embeddings-url'],
              model: flags['embeddings-model'],
              ...(embeddingsKey === undefined ? {} : { apiKey: embeddingsKey }),
            },
          }),
    },
  };
}

async function workspaceRoot(dir: string): Promise<string> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(dir)).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `--cwd ${dir}: no such folder` : `--cwd ${dir}: cannot be read (${code})`);
  }
  if (!isDirectory) throw new UsageError(`--cwd ${dir}: not a folder`);
  return realpath(dir);
}

/**
 * `--agents-dir` as a real path (it need not exist yet: the part that does is resolved). It may lie inside the
 * root or elsewhere, but not be the root or above it: every agent's copy would then be a sibling of the
 * workspace, or the workspace itself.
 */
async function agentsFolder(dir: string, root: string): Promise<string> {
  const { real, missing } = await realFolderPath(dir, '--agents-dir');
  if (missing === 0 && !(await stat(real)).isDirectory()) throw new UsageError(`--agents-dir ${dir}: not a folder`);
  if (real === root || root.startsWith(real + sep)) {
    throw new UsageError(`--agents-dir ${dir}: must not be the workspace root or a folder above it`);
  }
  return real;
}

/** A folder's real path when only part of it exists yet: the existing part resolved, the rest appended. */
async function realFolderPath(dir: string, flag: string): Promise<{ real: string; missing: number }> {
  const missing: string[] = [];
  let existing = dir;
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || existing === dirname(existing)) {
        throw new UsageError(`${flag} ${dir}: cannot be read (${(error as NodeJS.ErrnoException).code})`);
      }
      missing.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
  return { real: join(existing, ...missing), missing: missing.length };
}
