/**
 * `workspace-api token --scope read|agent:ID [--ttl DURATION] [--token TOKEN]`: prints a scoped token
 * (docs/architecture.md#scoped-tokens) signed with the daemon's full token — `--token`, else $WORKSPACE_TOKEN, the
 * same two places the daemon takes it from. Nothing is stored or sent: any daemon started with that full token
 * accepts the result until it expires.
 */
import { parseArgs } from 'node:util';
import { formatScope, MAX_SCOPED_TOKEN_TTL_MS, mintScopedToken, parseScope, type TokenScope } from '../../core/auth/scoped-token.ts';
import { UsageError } from './args.ts';

export const TOKEN_USAGE = `Usage: workspace-api token --scope read|agent:ID [--ttl DURATION] [--token TOKEN]

Prints a token that opens less than the full one, for as long as --ttl says:
  --scope read       reads only: GET routes, /ws reads (files, search, git status/diff/log); no writes,
                     terminals, commands, git writes or chats
  --scope agent:ID   the agent ID's private copy only (Intentic's calls with agent=ID)
  --ttl DURATION     how long it opens anything: 90s, 30m, 12h, 7d (default: 24h, at most 365d)
  --token TOKEN      the daemon's full token to sign with (default: $WORKSPACE_TOKEN)
`;

export interface TokenRequest {
  scope: TokenScope;
  ttlMs: number;
  fullToken: string;
}

const DEFAULT_TTL_MS = 24 * 3600 * 1000;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function parseTokenArgs(argv: string[], env: Record<string, string | undefined>): TokenRequest | { help: true } {
  let values: { scope?: string; ttl?: string; token?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: { scope: { type: 'string' }, ttl: { type: 'string' }, token: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { help: true };
  if (values.scope === undefined) throw new UsageError('token: --scope is required (read or agent:ID)');
  const scope = parseScope(values.scope);
  if (!scope) throw new UsageError(`token: --scope ${values.scope}: expected read or agent:ID (ID: ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$)`);
  const ttlMs = values.ttl === undefined ? DEFAULT_TTL_MS : parseDuration(values.ttl);
  const fullToken = values.token ?? (env.WORKSPACE_TOKEN || undefined);
  if (fullToken === undefined) {
    throw new UsageError('token: needs the daemon\'s full token to sign with: --token TOKEN or $WORKSPACE_TOKEN');
  }
  return { scope, ttlMs, fullToken };
}

function parseDuration(text: string): number {
  const match = /^([1-9][0-9]{0,8})([smhd])$/.exec(text);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : NaN;
  if (!(ms >= 1000 && ms <= MAX_SCOPED_TOKEN_TTL_MS)) {
    throw new UsageError(`token: --ttl ${text}: expected a duration such as 90s, 30m, 12h or 7d, at most 365d`);
  }
  return ms;
}

/** Runs the subcommand: the token on stdout (alone on its line, for `$(…)`), what it opens on stderr. */
export function runTokenCommand(argv: string[], env: Record<string, string | undefined>, now = Date.now()): void {
  const parsed = parseTokenArgs(argv, env);
  if ('help' in parsed) {
    process.stdout.write(TOKEN_USAGE);
    return;
  }
  const token = mintScopedToken(parsed.fullToken, parsed.scope, parsed.ttlMs, now);
  process.stdout.write(`${token}\n`);
  const expires = new Date(Math.ceil((now + parsed.ttlMs) / 1000) * 1000).toISOString();
  process.stderr.write(`workspace-api: scope ${formatScope(parsed.scope)}, valid until ${expires}\n`);
}
