import { homedir } from 'node:os';
import { parseCliArgs, USAGE, UsageError, type CliCommand } from './args.ts';
import type { NodeServer } from './server.ts';

/** Shutdown should take about a second (terminal grace period); past this something is stuck. */
const SHUTDOWN_DEADLINE_MS = 10_000;
/** A local embeddings server answers a few dozen chunks in well under this; past it prose search goes on without. */
const EMBEDDINGS_TIMEOUT_MS = 5_000;

async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'token') return mintToken(argv.slice(1));
  let command: CliCommand;
  try {
    command = await parseCliArgs(argv, process.env, process.cwd());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`workspace-api: ${error.message}\nRun 'workspace-api --help' for usage.\n`);
    process.exit(error.exitCode);
  }
  if (command.help) {
    process.stdout.write(USAGE);
    return;
  }
  const { config } = command;
  // Loaded only now: `--help` and usage errors answer without loading the whole daemon (~2 s of modules).
  const { startNodeServer } = await import('./server.ts');
  const panel = config.panel ? (await import('./node-panel-assets.ts')).createNodePanelAssets() : undefined;

  let server: NodeServer;
  try {
    server = await startNodeServer({
      root: config.root,
      auth: config.auth,
      host: config.host,
      port: config.port,
      acceptors: config.acceptors,
      unrestricted: config.unrestricted,
      watch: config.watch,
      allowedOrigins: config.allowedOrigins,
      agentsDir: config.agentsDir,
      ...(config.previewUrl === undefined ? {} : { previewUrl: config.previewUrl }),
      limits: {
        mediaTicketTtlMs: config.mediaTicketTtlMs,
        commandTimeoutMs: config.commandTimeoutMs,
        commandOutputCap: config.commandOutputCap,
        maxTerminals: config.maxTerminals,
        terminalRingBytes: config.terminalRingBytes,
        terminalReapMs: config.terminalReapMs,
        maxChats: config.maxChats,
        chatTimeoutMs: config.chatTimeoutMs,
      },
      chatModelsUrls: config.chatModelsUrls,
      ...(panel === undefined ? {} : { panel }),
      home: homedir(),
      searchOptions: {
        persist: true,
        eager: true,
        noIndex: config.noIndex,
        ...(config.indexDir === undefined ? {} : { indexDir: config.indexDir }),
        ...(config.embeddings === undefined ? {} : { embeddings: { ...config.embeddings, timeoutMs: EMBEDDINGS_TIMEOUT_MS } }),
        log: (line) => process.stderr.write(line + '\n'),
      },
    });
  } catch (error) {
    process.stderr.write(`workspace-api: cannot listen on ${config.host}:${config.port}: ${(error as Error).message}\n`);
    process.exit(1);
  }

  process.stdout.write(`listening on ${server.url}\n`);
  // The URL to open: the panel signs in with the token it carries (docs/panel.md#sign-in), or the API's listing.
  const opening = panel ? `${server.url}/` : `${server.url}/api/files`;
  if ('token' in config.auth) process.stdout.write(`${opening}?token=${encodeURIComponent(config.auth.token)}\n`);
  // Built now, while nobody waits yet, so the first page load does not (docs/panel.md#assets).
  panel?.warm().catch(() => {}); // a failure is logged by the asset source itself

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`workspace-api: ${signal} again, exiting without cleanup\n`);
      process.exit(1);
    }
    stopping = true;
    setTimeout(() => {
      process.stderr.write('workspace-api: shutdown timed out\n');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`workspace-api: shutdown failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** `workspace-api token …` (runtime/node/token-command.ts): prints a scoped token and exits; no daemon starts. */
async function mintToken(argv: string[]): Promise<void> {
  const { runTokenCommand } = await import('./token-command.ts');
  try {
    runTokenCommand(argv, process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`workspace-api: ${error.message}\nRun 'workspace-api token --help' for usage.\n`);
    process.exit(error.exitCode);
  }
}

await main(process.argv.slice(2));
