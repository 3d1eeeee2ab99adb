/**
 * How long one git process may run (docs/noide-protocol.md#git): `WORKSPACE_GIT_TIMEOUT` seconds for every
 * subcommand when it is set to a positive number; else 120 s, and 600 s for the ones that talk to a remote.
 */

export const DEFAULT_GIT_TIMEOUT_SECONDS = 120;
export const NETWORK_GIT_TIMEOUT_SECONDS = 600;

/** The subcommands that move objects over the network: a slow remote is normal for them, not a hang. */
const NETWORK_SUBCOMMANDS: ReadonlySet<string> = new Set(['clone', 'fetch', 'pull', 'push']);

/** The longest delay setTimeout honours (2^31 - 1 ms); a longer one fires at once, so it is the ceiling. */
const MAX_TIMEOUT_SECONDS = Math.floor(0x7fffffff / 1000);

/**
 * `WORKSPACE_GIT_TIMEOUT` as seconds, or undefined when it is unset or not a positive decimal number (`""`, `0`,
 * `-5`, `10s`, `1e3`, `Infinity`): a typo must not turn the deadline off or make every git call fail at once, so
 * it falls back to the defaults. Surrounding blanks are allowed; values past setTimeout's range are clamped.
 */
export function parseGitTimeoutSetting(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(value)) return undefined;
  const seconds = Number(value);
  if (!(seconds > 0)) return undefined;
  return Math.min(seconds, MAX_TIMEOUT_SECONDS);
}

/** The deadline in seconds for `subcommand`, given the environment the daemon runs with. */
export function gitTimeoutSeconds(subcommand: string, env: NodeJS.ProcessEnv = process.env): number {
  const configured = parseGitTimeoutSetting(env.WORKSPACE_GIT_TIMEOUT);
  if (configured !== undefined) return configured;
  return NETWORK_SUBCOMMANDS.has(subcommand) ? NETWORK_GIT_TIMEOUT_SECONDS : DEFAULT_GIT_TIMEOUT_SECONDS;
}

/** git's global options that take their value as the NEXT argument (`-c k=v`, `-C dir`, `--git-dir dir`, …). */
const OPTIONS_WITH_SEPARATE_VALUE: ReadonlySet<string> = new Set([
  '-c',
  '-C',
  '--config-env',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--super-prefix',
  '--attr-source',
]);

/**
 * The subcommand of a git argument list: the first argument that is not one of git's global options, so
 * `-c core.quotepath=off --literal-pathspecs status` is `status`. `""` when there is none (`--version`).
 */
export function gitSubcommand(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-')) return arg;
    if (OPTIONS_WITH_SEPARATE_VALUE.has(arg)) i++;
  }
  return '';
}
