/** Variables that describe the terminal the daemon itself runs in; node-pty drops them for the same reason. */
const DAEMON_TERMINAL_VARIABLES = ['TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'TERMCAP', 'COLUMNS', 'LINES'];

/** The daemon's environment for a child it starts, minus what only describes the daemon's own terminal. */
export function childEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(from)) if (value !== undefined) env[key] = value;
  for (const key of DAEMON_TERMINAL_VARIABLES) delete env[key];
  return env;
}
