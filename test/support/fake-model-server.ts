/**
 * A loopback OpenAI-compatible model server for tests that drive a real agent CLI: the CLI's provider points its
 * base URL here, so a run completes offline with replies the test chose. Every request is recorded. A scripted
 * reply can end its step with `tool_calls` (an agent loop then asks again) and can hold after its first chunk, so
 * a test decides when a run may go on instead of guessing how long it takes.
 */
import { createServer, type ServerResponse } from 'node:http';
import { deferred, type Deferred } from './gates.ts';
import { listenOnLoopback } from './loopback-listen.ts';

export interface FakeModelRequest {
  method: string;
  /** The path with its query, e.g. `/v1/chat/completions`. */
  path: string;
  /** The parsed JSON body; undefined when there was none or it was not JSON. */
  body: unknown;
}

export interface ScriptedReply {
  /** Which chat completion this reply answers: the first one it matches that no earlier scripted reply took. */
  match: (request: FakeModelRequest) => boolean;
  text: string;
  /** `stop` (the default) ends the agent's turn; `tool_calls` is a step that used tools, so the agent asks again. */
  finishReason?: 'stop' | 'tool_calls';
  /** Streams the first chunk, then waits for `release()` (or for `close()`, which drops the connection). */
  hold?: boolean;
}

/** A scripted reply under way: its request arrived and its first chunk was handed to the socket. */
export interface AnsweringReply {
  request: FakeModelRequest;
  /** Sends the rest of a held reply and ends it (nothing for one that was not held). */
  release(): void;
}

export interface FakeModelServer {
  /** `http://127.0.0.1:PORT/v1`, an OpenAI-compatible provider's base URL. */
  readonly baseURL: string;
  /** Every request so far, in arrival order. */
  readonly requests: readonly FakeModelRequest[];
  /** Queues a reply; resolves once it has started answering its request. */
  script(reply: ScriptedReply): Promise<AnsweringReply>;
  /** Stops listening and drops every connection, held replies included; unused scripted replies reject. */
  close(): Promise<void>;
}

/** The one model the server lists; chat completions are answered whatever model they name. */
export const FAKE_MODEL_ID = 'm';

/** Starts the server on a free loopback port; completions nothing was scripted for answer `defaultReply`. */
export async function startFakeModelServer({ defaultReply = 'OK.' } = {}): Promise<FakeModelServer> {
  const requests: FakeModelRequest[] = [];
  const scripted: { reply: ScriptedReply; answering: Deferred<AnsweringReply> }[] = [];
  let completions = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      const recorded: FakeModelRequest = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        body: parseJson(Buffer.concat(chunks).toString('utf8')),
      };
      requests.push(recorded);
      const path = recorded.path.split('?')[0];
      if (recorded.method === 'GET' && path === '/v1/models') {
        sendJson(response, 200, { object: 'list', data: [{ id: FAKE_MODEL_ID, object: 'model', created: 0, owned_by: 'fake' }] });
        return;
      }
      if (recorded.method !== 'POST' || path !== '/v1/chat/completions' || !isObject(recorded.body)) {
        sendJson(response, 404, { error: { message: `no route for ${recorded.method} ${path}`, type: 'not_found' } });
        return;
      }
      const index = scripted.findIndex(({ reply }) => reply.match(recorded));
      const entry = index === -1 ? undefined : scripted.splice(index, 1)[0];
      const reply = entry?.reply ?? { match: () => true, text: defaultReply };
      const id = `chatcmpl-fake-${++completions}`;
      const model = typeof recorded.body.model === 'string' ? recorded.body.model : FAKE_MODEL_ID;
      if (recorded.body.stream !== true) {
        sendJson(response, 200, completion(id, model, reply));
        entry?.answering.resolve({ request: recorded, release: () => {} });
        return;
      }
      const release = streamCompletion(response, id, model, reply, () => entry?.answering.resolve({ request: recorded, release }));
    });
  });
  const { port, sockets } = await listenOnLoopback(server);

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script(reply) {
      const answering = deferred<AnsweringReply>();
      // A reply a test never awaits must not fail the run as an unhandled rejection when close() drops it.
      answering.promise.catch(() => {});
      scripted.push({ reply, answering });
      return answering.promise;
    },
    async close() {
      for (const { answering } of scripted.splice(0)) answering.reject(new Error('fake model server closed before the reply was asked for'));
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The reply as server-sent events, the way OpenAI streams it: the role with the text's first word, the rest of
 * the text, a last chunk with `finish_reason` and usage, then `[DONE]`. `started` runs once the first chunk has
 * been handed to the socket (not merely queued). Returns what sends everything after the first chunk: called at
 * once, or by `release()` for a held reply.
 */
function streamCompletion(response: ServerResponse, id: string, model: string, reply: ScriptedReply, started: () => void): () => void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const event = (delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
  const space = reply.text.indexOf(' ');
  const split = space === -1 ? reply.text.length : space;
  let finished = false;
  const finish = () => {
    if (finished || response.destroyed) return;
    finished = true;
    if (split < reply.text.length) response.write(event({ content: reply.text.slice(split) }));
    response.write(event({}, reply.finishReason ?? 'stop', { usage: USAGE }));
    response.end('data: [DONE]\n\n');
  };
  response.write(event({ role: 'assistant', content: reply.text.slice(0, split) }), () => started());
  if (!reply.hold) finish();
  return finish;
}

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function completion(id: string, model: string, reply: ScriptedReply): unknown {
  return {
    id,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: reply.finishReason ?? 'stop' }],
    usage: USAGE,
  };
}

/** Whether any message of a chat completion request has `text` in its content (a string or text parts). */
export function messagesMention(request: FakeModelRequest, text: string): boolean {
  const { body } = request;
  if (!isObject(body) || !Array.isArray(body.messages)) return false;
  return body.messages.some((message: unknown) => {
    if (!isObject(message)) return false;
    const { content } = message;
    if (typeof content === 'string') return content.includes(text);
    return Array.isArray(content) && content.some((part: unknown) => isObject(part) && typeof part.text === 'string' && part.text.includes(text));
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
