import { http, HttpResponse, type JsonBodyType } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChatError } from '../../../core/chat/chat-types.ts';
import { DEFAULT_MODEL_BASE_URLS, listModels, type ModelListOptions } from '../../../core/chat/model-lists.ts';
import { deferred, type Deferred } from '../../support/gates.ts';

const OPENROUTER_MODELS = 'https://openrouter.ai/api/v1/models';
const KILO_MODELS = 'https://api.kilo.ai/api/gateway/models';
const CUSTOM = 'http://models.test';

const defaults: ModelListOptions = { baseUrls: DEFAULT_MODEL_BASE_URLS };

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
}
let seen: Seen[] = [];
/** Handlers that hold their answer until the test is over (the timeout tests). */
let held: Deferred[] = [];

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  for (const gate of held) gate.resolve();
  held = [];
  server.resetHandlers();
  seen = [];
});
afterAll(() => server.close());

function record(request: Request): void {
  seen.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers) });
}

/** `url` answers `body` as JSON (200), recording each request. */
function serve(url: string, body: JsonBodyType): void {
  server.use(
    http.get(url, ({ request }) => {
      record(request);
      return HttpResponse.json(body);
    }),
  );
}

/** `url` answers with `response()` (a fresh one per request). */
function answer(url: string, response: () => Response): void {
  server.use(http.get(url, () => response()));
}

const twoModels = { data: [{ id: 'anthropic/claude-sonnet-4' }, { id: 'openai/gpt-5' }] };
const twoModelsListed = [
  { id: 'anthropic/claude-sonnet-4', label: 'anthropic/claude-sonnet-4' },
  { id: 'openai/gpt-5', label: 'openai/gpt-5' },
];

/** The ChatError `work` fails with: its message (anything else thrown fails the test). */
async function chatErrorOf(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ChatError);
  return (error as ChatError).message;
}

describe('listModels: where it asks', () => {
  it('opencode lists OpenRouter: GET /api/v1/models, accepting JSON, with the key as a Bearer token', async () => {
    serve(OPENROUTER_MODELS, twoModels);
    expect(await listModels('opencode', 'sk-or-1', defaults)).toEqual(twoModelsListed);
    expect(seen).toEqual([
      {
        method: 'GET',
        url: OPENROUTER_MODELS,
        headers: expect.objectContaining({ accept: 'application/json', authorization: 'Bearer sk-or-1' }),
      },
    ]);
  });

  it('kilo lists the Kilo gateway: GET /api/gateway/models', async () => {
    serve(KILO_MODELS, twoModels);
    expect(await listModels('kilo', 'kilo-key', defaults)).toEqual(twoModelsListed);
    expect(seen).toEqual([
      {
        method: 'GET',
        url: KILO_MODELS,
        headers: expect.objectContaining({ accept: 'application/json', authorization: 'Bearer kilo-key' }),
      },
    ]);
  });

  it('joins a custom base with or without a trailing slash, keeping a path the base has', async () => {
    serve(`${CUSTOM}/api/v1/models`, twoModels);
    serve(`${CUSTOM}/api/gateway/models`, twoModels);
    serve(`${CUSTOM}/proxy/api/v1/models`, twoModels);
    for (const base of [CUSTOM, `${CUSTOM}/`]) {
      const options = { baseUrls: { opencode: base, kilo: base } };
      expect(await listModels('opencode', undefined, options)).toEqual(twoModelsListed);
      expect(await listModels('kilo', undefined, options)).toEqual(twoModelsListed);
    }
    expect(await listModels('opencode', undefined, { baseUrls: { opencode: `${CUSTOM}/proxy/`, kilo: CUSTOM } })).toEqual(twoModelsListed);
    expect(seen.map((request) => request.url)).toEqual([
      `${CUSTOM}/api/v1/models`,
      `${CUSTOM}/api/gateway/models`,
      `${CUSTOM}/api/v1/models`,
      `${CUSTOM}/api/gateway/models`,
      `${CUSTOM}/proxy/api/v1/models`,
    ]);
  });

  it('sends Authorization only with a key that is not blank, and the key as given', async () => {
    serve(OPENROUTER_MODELS, twoModels);
    for (const apiKey of [undefined, '', '   ', '\t\n']) await listModels('opencode', apiKey, defaults);
    await listModels('opencode', 'sk  inner', defaults);
    expect(seen.map((request) => request.headers.authorization)).toEqual([undefined, undefined, undefined, undefined, 'Bearer sk  inner']);
    expect(seen.map((request) => request.headers.accept)).toEqual(Array(5).fill('application/json'));
  });

  it('reads the agent trimmed, without dashes, in any case', async () => {
    serve(OPENROUTER_MODELS, twoModels);
    serve(KILO_MODELS, twoModels);
    for (const agent of [' Open-Code ', 'OPENCODE', 'KILO', 'kilo-', '-k-i-l-o-']) {
      expect(await listModels(agent, undefined, defaults)).toEqual(twoModelsListed);
    }
    expect(seen.map((request) => request.url)).toEqual([OPENROUTER_MODELS, OPENROUTER_MODELS, KILO_MODELS, KILO_MODELS, KILO_MODELS]);
  });

  it('refuses any other agent by the name as sent, clipped to 128 characters, without a request', async () => {
    expect(await chatErrorOf(listModels('claude', 'k', defaults))).toBe("Unknown agent 'claude'");
    expect(await chatErrorOf(listModels(' Claude-Code ', 'k', defaults))).toBe("Unknown agent ' Claude-Code '");
    expect(await chatErrorOf(listModels('open code', 'k', defaults))).toBe("Unknown agent 'open code'");
    expect(await chatErrorOf(listModels('', 'k', defaults))).toBe("Unknown agent ''");
    expect(await chatErrorOf(listModels('__proto__', 'k', defaults))).toBe("Unknown agent '__proto__'");
    expect(await chatErrorOf(listModels('x'.repeat(128), 'k', defaults))).toBe(`Unknown agent '${'x'.repeat(128)}'`);
    expect(await chatErrorOf(listModels('y'.repeat(300), 'k', defaults))).toBe(`Unknown agent '${'y'.repeat(128)}…'`);
    expect(seen).toEqual([]);
  });

  it('uses an injected fetch instead of the global one', async () => {
    const asked: string[] = [];
    const fetch = (async (input: RequestInfo | URL) => {
      asked.push(String(input));
      return Response.json({ data: [{ id: 'injected' }] });
    }) as typeof globalThis.fetch;
    expect(await listModels('kilo', undefined, { ...defaults, fetch })).toEqual([{ id: 'injected', label: 'injected' }]);
    expect(asked).toEqual([KILO_MODELS]);
    expect(seen).toEqual([]);
  });
});

describe('listModels: the answer', () => {
  it('takes every element of `data` with a string id, in order, and skips the rest', async () => {
    serve(OPENROUTER_MODELS, {
      data: [
        { id: 'z/last-alphabetically', name: 'Z' },
        { id: 7 },
        'a/string',
        null,
        { name: 'no id' },
        ['a/array'],
        { id: null },
        { id: 'a/first-alphabetically', context_length: 8192 },
        { id: { nested: 'x' } },
      ],
      other: 'ignored',
    });
    expect(await listModels('opencode', undefined, defaults)).toEqual([
      { id: 'z/last-alphabetically', label: 'z/last-alphabetically' },
      { id: 'a/first-alphabetically', label: 'a/first-alphabetically' },
    ]);
  });
});

describe('listModels: error texts', () => {
  it('a network failure: Request to <url> failed: <reason>', async () => {
    answer(OPENROUTER_MODELS, () => HttpResponse.error());
    expect(await chatErrorOf(listModels('opencode', undefined, defaults))).toBe(`Request to ${OPENROUTER_MODELS} failed: Failed to fetch`);
  });

  it('a non-2xx status: <url> returned status <code> <text>, the text trimmed', async () => {
    answer(OPENROUTER_MODELS, () => new HttpResponse('{"error":"boom"}', { status: 500, statusText: 'Internal Server Error' }));
    answer(KILO_MODELS, () => new HttpResponse(null, { status: 401, statusText: ' Unauthorized ' }));
    expect(await chatErrorOf(listModels('opencode', undefined, defaults))).toBe(`${OPENROUTER_MODELS} returned status 500 Internal Server Error`);
    expect(await chatErrorOf(listModels('kilo', undefined, defaults))).toBe(`${KILO_MODELS} returned status 401 Unauthorized`);
  });

  it('a non-2xx status with no status text: <url> returned status <code>', async () => {
    // A plain Response: msw's HttpResponse would fill in the standard text for a known code.
    answer(OPENROUTER_MODELS, () => new Response(null, { status: 404, statusText: '' }));
    answer(KILO_MODELS, () => new Response(null, { status: 503, statusText: '   ' }));
    expect(await chatErrorOf(listModels('opencode', undefined, defaults))).toBe(`${OPENROUTER_MODELS} returned status 404`);
    expect(await chatErrorOf(listModels('kilo', undefined, defaults))).toBe(`${KILO_MODELS} returned status 503`);
  });

  it('a body that is not JSON: Failed to parse response from <url>: <reason>', async () => {
    answer(OPENROUTER_MODELS, () => new HttpResponse('not json', { headers: { 'content-type': 'application/json' } }));
    answer(KILO_MODELS, () => new HttpResponse(''));
    expect(await chatErrorOf(listModels('opencode', undefined, defaults))).toBe(
      `Failed to parse response from ${OPENROUTER_MODELS}: Unexpected token 'o', "not json" is not valid JSON`,
    );
    expect(await chatErrorOf(listModels('kilo', undefined, defaults))).toBe(`Failed to parse response from ${KILO_MODELS}: Unexpected end of JSON input`);
  });

  for (const [name, body] of [
    ['{}', {}],
    ['{"data":"x"}', { data: 'x' }],
    ['{"data":{}}', { data: {} }],
    ['{"data":null}', { data: null }],
    ['[] at the top level', []],
    ['null', null],
    ['a string', 'models'],
  ] as const) {
    it(`no data array (${name}): No 'data' array in response from <url>`, async () => {
      serve(KILO_MODELS, body);
      expect(await chatErrorOf(listModels('kilo', undefined, defaults))).toBe(`No 'data' array in response from ${KILO_MODELS}`);
    });
  }

  for (const [name, body] of [
    ['{"data":[]}', { data: [] }],
    ['{"data":[{"name":"x"}]}', { data: [{ name: 'x' }] }],
    ['only ids that are not strings', { data: [{ id: 1 }, { id: null }, 'x'] }],
  ] as const) {
    it(`data without a model (${name}): No models returned from <url>`, async () => {
      serve(OPENROUTER_MODELS, body);
      expect(await chatErrorOf(listModels('opencode', undefined, defaults))).toBe(`No models returned from ${OPENROUTER_MODELS}`);
    });
  }
});

describe('listModels: the time limit', () => {
  it('a provider that never answers: Request to <url> failed: timed out after <seconds> s', async () => {
    const gate = deferred();
    held.push(gate);
    server.use(
      http.get(OPENROUTER_MODELS, async () => {
        await gate.promise;
        return HttpResponse.json(twoModels);
      }),
    );
    expect(await chatErrorOf(listModels('opencode', undefined, { ...defaults, timeoutMs: 50 }))).toBe(
      `Request to ${OPENROUTER_MODELS} failed: timed out after 0.05 s`,
    );
  });

  it('covers reading the body: a provider that stalls mid-body times out the same way', async () => {
    answer(
      KILO_MODELS,
      () =>
        new HttpResponse(
          new ReadableStream<Uint8Array>({
            start(controller) {
              // Half a list, and then nothing: the stream is never closed.
              controller.enqueue(new TextEncoder().encode('{"data":[{"id":"a"},'));
            },
          }),
          { headers: { 'content-type': 'application/json' } },
        ),
    );
    expect(await chatErrorOf(listModels('kilo', undefined, { ...defaults, timeoutMs: 50 }))).toBe(
      `Request to ${KILO_MODELS} failed: timed out after 0.05 s`,
    );
  });

  it('holds an injected fetch that ignores the signal to the limit too', async () => {
    const gate = deferred();
    held.push(gate);
    const fetch = (async () => {
      await gate.promise;
      return Response.json(twoModels);
    }) as typeof globalThis.fetch;
    expect(await chatErrorOf(listModels('opencode', undefined, { ...defaults, timeoutMs: 120, fetch }))).toBe(
      `Request to ${OPENROUTER_MODELS} failed: timed out after 0.12 s`,
    );
  });
});
