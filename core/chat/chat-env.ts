/**
 * The environment of a chat run and of an agent server: the daemon's, made plain for a program whose output is
 * relayed line by line (no colours, no pager, a dumb terminal, UTF-8), plus the client's API key and, for kilo,
 * its mode (docs/noide-protocol.md#chat_stream).
 */
import type { ChatAgent } from './chat-types.ts';

const PLAIN_OUTPUT: Readonly<Record<string, string>> = {
  NO_COLOR: '1',
  CLICOLOR: '0',
  TERM: 'dumb',
  CI: '1',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  PYTHONIOENCODING: 'utf-8',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
};

/** Variables that would force colour back on whatever NO_COLOR says. */
const FORCING_COLOUR = ['FORCE_COLOR', 'CLICOLOR_FORCE'];

export interface ChatEnvOptions {
  agent: ChatAgent;
  apiKey?: string;
  mode?: string;
}

export function chatEnv(base: Readonly<Record<string, string>>, options: ChatEnvOptions): Record<string, string> {
  const env: Record<string, string> = { ...base, ...PLAIN_OUTPUT };
  for (const key of FORCING_COLOUR) delete env[key];
  if (options.apiKey !== undefined && options.apiKey.trim() !== '') env.OPENROUTER_API_KEY = options.apiKey;
  if (options.agent === 'kilo') {
    const mode = kiloMode(options.mode);
    if (mode === undefined) delete env.KILO_CONFIG_CONTENT;
    else env.KILO_CONFIG_CONTENT = JSON.stringify({ mode });
  }
  return env;
}

/** `ask` and `plan` as given; any other non-blank mode is `code`; blank is none. */
function kiloMode(mode: string | undefined): string | undefined {
  const trimmed = mode?.trim() ?? '';
  if (trimmed === '') return undefined;
  return trimmed === 'ask' || trimmed === 'plan' ? trimmed : 'code';
}

/** The identity probe's environment (`<exe> run --help`): plain output, nothing of the client's. */
export function probeEnv(base: Readonly<Record<string, string>>): Record<string, string> {
  return { ...base, NO_COLOR: '1', TERM: 'dumb', CI: '1' };
}
