/**
 * `chat_models {agent, apiKey?}` (docs/noide-protocol.md#agent-chat): the models an agent can use, from the
 * provider its CLI talks to — OpenRouter for opencode, the Kilo gateway for kilo. Edge-clean: only the global
 * `fetch`. Every failure is a ChatError whose message is the protocol's error text.
 */
import { ChatError, type ChatModel } from './chat-types.ts';
import { sendableHeaderValue } from '../text/header-value.ts';

export interface ModelListOptions {
  /** Base URLs: opencode → OpenRouter, kilo → the Kilo gateway. */
  baseUrls: { opencode: string; kilo: string };
  /** Whole request limit, ms (default 15 000). */
  timeoutMs?: number;
  /** Default: globalThis.fetch, read at call time (so msw's interception applies). */
  fetch?: typeof fetch;
}

export const DEFAULT_MODEL_BASE_URLS = { opencode: 'https://openrouter.ai', kilo: 'https://api.kilo.ai' } as const;

export const DEFAULT_MODEL_LIST_TIMEOUT_MS = 15_000;

/** The list's path on each provider, by the agent's normalised name. */
const MODEL_LIST_PATHS = {
  opencode: '/api/v1/models',
  kilo: '/api/gateway/models',
} as const;

type ModelListAgent = keyof typeof MODEL_LIST_PATHS;

export async function listModels(agent: string, apiKey: string | undefined, options: ModelListOptions): Promise<ChatModel[]> {
  const provider = modelListAgent(agent);
  if (provider === undefined) throw new ChatError(`Unknown agent '${clipped(agent)}'`);
  const url = joinUrl(options.baseUrls[provider], MODEL_LIST_PATHS[provider]);
  const body = await fetchBody(url, apiKey, options);
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch (error) {
    throw new ChatError(`Failed to parse response from ${url}: ${messageOf(error)}`);
  }
  const data = isObject(answer) ? answer.data : undefined;
  if (!Array.isArray(data)) throw new ChatError(`No 'data' array in response from ${url}`);
  const models = data.flatMap((entry: unknown) => (isObject(entry) && typeof entry.id === 'string' ? [{ id: entry.id, label: entry.id }] : []));
  if (models.length === 0) throw new ChatError(`No models returned from ${url}`);
  return models;
}

/** Clients write the agent's name loosely (` Open-Code `, `KILO`): case, dashes and outer blanks do not count. */
function modelListAgent(agent: string): ModelListAgent | undefined {
  const name = agent.trim().replaceAll('-', '').toLowerCase();
  return Object.hasOwn(MODEL_LIST_PATHS, name) ? (name as ModelListAgent) : undefined;
}

/** The body as text, within the one deadline: a provider that stalls mid-body costs no more than one that never answers. */
async function fetchBody(url: string, apiKey: string | undefined, options: ModelListOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_LIST_TIMEOUT_MS;
  // Read now, not at import: a test's msw server patches the global after this module has loaded.
  const fetcher = options.fetch ?? globalThis.fetch;
  const signal = AbortSignal.timeout(timeoutMs);
  const failed = (error: unknown) =>
    new ChatError(`Request to ${url} failed: ${signal.aborted ? `timed out after ${timeoutMs / 1000} s` : messageOf(error)}`);

  const headers: Record<string, string> = { accept: 'application/json' };
  // A blank key is no key: the public list answers without one, and `Bearer ` alone would be refused.
  if (apiKey !== undefined && apiKey.trim() !== '') headers.authorization = `Bearer ${apiKey}`;
  // fetch refuses a header value with a line break in it, in a message that quotes the value: the key.
  if (headers.authorization !== undefined && !sendableHeaderValue(headers.authorization)) {
    throw new ChatError(`Request to ${url} failed: the API key cannot be sent in a header (it holds a line break or a character past U+00FF)`);
  }

  let response: Response;
  try {
    response = await beforeAbort(fetcher(url, { headers, signal }), signal);
  } catch (error) {
    throw failed(error);
  }
  if (!response.ok) {
    // The error text is all the client gets; the body would only hold the connection open.
    response.body?.cancel().catch(() => {});
    const statusText = response.statusText.trim();
    throw new ChatError(`${url} returned status ${response.status}${statusText === '' ? '' : ` ${statusText}`}`);
  }
  try {
    return await beforeAbort(response.text(), signal);
  } catch (error) {
    response.body?.cancel().catch(() => {});
    throw failed(error);
  }
}

/**
 * `work`, or a rejection the moment `signal` aborts: a fetch that does not watch its signal (an injected one, or
 * a body some implementation keeps reading) still cannot outlive the deadline.
 */
function beforeAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Base URLs come with or without a trailing `/`; the path brings its own. */
function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

/** Client text echoed in an error is cut, as the `/ws` rows cut theirs: an answer never carries much of it. */
function clipped(text: string, max = 128): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

