/**
 * The daemon on a runtime that is not Node but offers `node:fs` (Bun, Deno; docs/runtimes.md): the app every
 * runtime mounts, over the local disk, with token auth and the web panel. Each entry (runtime/bun.ts,
 * runtime/deno.ts) passes only its runtime's own server; this module does what the Node CLI does around it —
 * flags, the app, the start-up lines, shutdown.
 *
 * What it leaves out (docs/runtimes.md#bun-and-deno): everything behind a WebSocket or a Node adapter. No upgrader
 * is passed to the app, so `/ws` answers 426 and the terminal routes 501 (no pty), as on Workers; no processes,
 * git, zip, agent chat or jobs; no OS watcher (the change feed and search see the API's own writes only, as with
 * the Node CLI's `--no-watch`); search scans and indexes in-process, in memory, with line heuristics for
 * definitions (no worker threads, no disk cache, no tree-sitter). `/capabilities` says so, and the panel offers
 * only what works.
 */
import { homedir } from 'node:os';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { NodeFileSystem } from '../adapters/fs/node-file-system.ts';
import { createWorkspaceApp } from './app.ts';
import { jsonResponse } from './errors/render.ts';
import { isAllowedHost } from './hosts.ts';
// Node's CLI parser and panel loader: both use only node:fs, node:path and node:util, which Bun and Deno provide.
import { parseCliArgs, UsageError, type CliCommand } from './node/args.ts';
import { createNodePanelAssets } from './node/node-panel-assets.ts';

/** What an entry's server gives back once it listens. */
export interface ListeningServer {
  port: number;
  /** Stops listening and ends open connections. */
  stop(): Promise<void>;
}

export interface ServeOptions {
  hostname: string;
  port: number;
  fetch(request: Request): Promise<Response>;
}

/** The Node CLI's flags that mean something here (the others belong to the parts left out above). */
const FLAGS = {
  cwd: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  'no-auth': { type: 'boolean' },
  unrestricted: { type: 'boolean' },
  'allow-origin': { type: 'string', multiple: true },
  'agents-dir': { type: 'string' },
  'media-ticket-ttl': { type: 'string' },
  'no-panel': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Which runtime this is, as messages name it. */
export interface PortableRuntime {
  /** `Bun`, `Deno`. */
  name: string;
  /** How the entry is started, for the usage text. */
  command: string;
}

const usage = ({ name, command }: PortableRuntime) => `Usage: ${command} [options]

Serves one folder (the workspace root) over HTTP from ${name}: files and search in every dialect, the web panel.
No terminals, WebSockets, commands or git here: run the Node daemon for those (docs/runtimes.md).

Options:
  --cwd DIR             workspace root (default: the current folder)
  --host HOST           interface to bind (default: 127.0.0.1)
  --port PORT           port to bind (default: 8787; 0 picks a free port)
  --token TOKEN         require this token (default: $WORKSPACE_TOKEN, else a generated one)
  --no-auth             require no token (only on a loopback host)
  --unrestricted        use absolute paths as given instead of confining them to the root
  --allow-origin URL    let this browser origin call the API ("*" for any); repeatable
  --agents-dir DIR      where agents' private copies live (default: .agents under the root)
  --media-ticket-ttl SECONDS
                        how long a media ticket stays valid (default: 3600)
  --no-panel            serve no web panel at / and no API reference at /docs
  -h, --help            show this help
`;

/** Shutdown is a stop and a close; past this something is stuck (the Node CLI's figure). */
const SHUTDOWN_DEADLINE_MS = 10_000;

export async function runPortableDaemon(runtime: PortableRuntime, serve: (options: ServeOptions) => Promise<ListeningServer>): Promise<void> {
  const argv = process.argv.slice(2);
  let command: CliCommand;
  try {
    refuseNodeOnlyFlags(argv, runtime.name);
    // Validated by the Node CLI's own parser, so a flag means exactly what it means there.
    command = await parseCliArgs(argv, process.env, process.cwd());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`workspace-api: ${error.message}\nRun '${runtime.command} --help' for usage.\n`);
    process.exit(error.exitCode);
  }
  if (command.help) {
    process.stdout.write(usage(runtime));
    return;
  }
  const { config } = command;
  const panel = config.panel ? createNodePanelAssets() : undefined;
  const app = createWorkspaceApp({
    fs: new NodeFileSystem(),
    root: config.root,
    auth: config.auth,
    unrestricted: config.unrestricted,
    allowedOrigins: config.allowedOrigins,
    ...(config.agentsDir === undefined ? {} : { agentsDir: config.agentsDir }),
    limits: { mediaTicketTtlMs: config.mediaTicketTtlMs },
    home: homedir(),
    // The app templates shipped beside the sources, as the Node daemon lists them (GET /workspace/templates).
    templatesDir: fileURLToPath(new URL('../templates', import.meta.url)),
    ...(panel === undefined ? {} : { panel }),
  });
  // Without a token, the Host check is what keeps a DNS-rebinding page out (runtime/hosts.ts), as on Node.
  const open = 'disabled' in config.auth;
  const fetch = (request: Request): Promise<Response> =>
    open && !isAllowedHost(request, config.host) ? Promise.resolve(jsonResponse({ error: 'host not allowed' }, 403)) : app.fetch(request);

  let server: ListeningServer;
  try {
    server = await serve({ hostname: config.host, port: config.port, fetch });
  } catch (error) {
    process.stderr.write(`workspace-api: cannot listen on ${config.host}:${config.port}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}`;
  process.stdout.write(`listening on ${url}\n`);
  // The URL to open, as the Node CLI prints it: the panel signs in with the token it carries (docs/panel.md#sign-in).
  const opening = panel ? `${url}/` : `${url}/api/files`;
  if ('token' in config.auth) process.stdout.write(`${opening}?token=${encodeURIComponent(config.auth.token)}\n`);
  panel?.warm().catch(() => {}); // built now so the first page load does not wait; a failure is logged by the loader

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      process.stderr.write(`workspace-api: ${signal} again, exiting without cleanup\n`);
      process.exit(1);
    }
    stopping = true;
    setTimeout(() => {
      process.stderr.write('workspace-api: shutdown timed out\n');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    // The app first: it ends the change feed's open streams, which a graceful server stop would wait for.
    app
      .close()
      .then(() => server.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`workspace-api: shutdown failed: ${(error as Error).message}\n`);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** A Node-only flag is refused by name rather than ignored, so nobody believes it took effect. */
function refuseNodeOnlyFlags(argv: string[], runtime: string): void {
  const { tokens } = parseArgs({ args: argv, options: FLAGS, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'option' && !Object.hasOwn(FLAGS, token.name)) {
      throw new UsageError(`${token.rawName}: not available on ${runtime} (the Node daemon has it: docs/runtimes.md)`);
    }
  }
}
