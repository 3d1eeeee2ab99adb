/**
 * runtime/lazy-handler.ts: a route's module is imported on the first request only, once for any number of
 * requests at once, and a load that failed is tried again by the next request.
 */
import { describe, expect, it } from 'vitest';
import type { Handler, WorkspaceContext } from '../../runtime/context.ts';
import { lazyHandler } from '../../runtime/lazy-handler.ts';

const ctx = {} as WorkspaceContext;
const request = () => new Request('http://localhost/x');

describe('lazyHandler', () => {
  it('loads on the first request, once, and answers with the named export', async () => {
    let loads = 0;
    const answer: Handler = async (req) => new Response(`hello ${new URL(req.url).pathname}`);
    const handler = lazyHandler(async () => {
      loads++;
      return { answer, other: (() => new Response('no')) as Handler };
    }, 'answer');
    expect(loads).toBe(0);
    const responses = await Promise.all([handler(request(), ctx), handler(request(), ctx)]);
    expect(await Promise.all(responses.map((r) => r.text()))).toEqual(['hello /x', 'hello /x']);
    await handler(request(), ctx);
    expect(loads).toBe(1);
  });

  it('a failed load rejects that request and is tried again by the next', async () => {
    let loads = 0;
    const handler = lazyHandler(async () => {
      if (++loads === 1) throw new Error('module not found');
      return { ok: (() => new Response('ok')) as Handler };
    }, 'ok');
    await expect(handler(request(), ctx)).rejects.toThrow('module not found');
    expect(await (await handler(request(), ctx)).text()).toBe('ok');
    expect(loads).toBe(2);
  });
});
