/** Variables that describe the terminal the daemon itself runs in; node-pty drops them for the same reason. */
const DAEMON_TERMINAL_VARIABLES = ['TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'TERMCAP', 'COLUMNS', 'LINES'];

/**
 * The daemon's own credentials, read from its environment for itself (runtime/node/args.ts). A terminal's `env`
 * would print them into its replay, and an agent chat or a dependency's install script would be handed them.
 */
const DAEMON_SECRET_VARIABLES = ['WORKSPACE_TOKEN', 'WORKSPACE_EMBEDDINGS_KEY'];

/** The daemon's environment for a child it starts, minus what only describes its own terminal, and its secrets. */
export function childEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(from)) if (value !== undefined) env[key] = value;
  for (const key of [...DAEMON_TERMINAL_VARIABLES, ...DAEMON_SECRET_VARIABLES]) delete env[key];
  return env;
}
