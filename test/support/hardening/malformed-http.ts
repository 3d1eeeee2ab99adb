/**
 * Sends a generated HttpCase (./malformed-requests.ts) and reads what the oracle needs (./malformed-oracle.ts):
 * in-process through the app's `fetch`, or over a socket to a real daemon through node:http. A success's body is
 * not read (it may be a 25 MiB file or the endless change feed): its status is all the oracle asks of it.
 */
import { request as httpRequest, type Agent } from 'node:http';
import type { Answer } from './malformed-oracle.ts';
import type { HttpCase } from './malformed-requests.ts';

/** What came back: an answer, or why there is none (the case could not be put on this wire, or the socket failed). */
export type Sent = { kind: 'answer'; answer: Answer } | { kind: 'unsendable'; why: string } | { kind: 'no-answer'; why: string };

/** Errors (≥ 400) are read whole, up to this much; nothing malformed should be answered at greater length. */
const MAX_ERROR_BODY = 1024 * 1024;

export async function sendInProcess(fetch: (request: Request) => Promise<Response>, sent: HttpCase): Promise<Sent> {
  let request: Request;
  try {
    const bodiless = sent.method.toUpperCase() === 'GET' || sent.method.toUpperCase() === 'HEAD';
    request = new Request(new URL(sent.target, 'http://localhost'), {
      method: sent.method,
      headers: sent.headers,
      // A Fetch Request cannot carry a GET body; the socket senders do send it.
      ...(bodiless || sent.body === undefined ? {} : { body: sent.body as Uint8Array<ArrayBuffer> }),
    });
  } catch (error) {
    return { kind: 'unsendable', why: (error as Error).message };
  }
  const response = await fetch(request);
  const contentType = response.headers.get('content-type');
  if (response.status < 400 || sent.method.toUpperCase() === 'HEAD') {
    await response.body?.cancel();
    return { kind: 'answer', answer: { status: response.status, contentType, body: undefined } };
  }
  return { kind: 'answer', answer: { status: response.status, contentType, body: await response.text() } };
}

/** Over node:http to `127.0.0.1:port`; `timeoutMs` without an answer is reported, never waited out silently. */
export function sendOverHttp(port: number, sent: HttpCase, agent: Agent | false, timeoutMs = 30_000): Promise<Sent> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of sent.headers) headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    // node:http frames a GET, HEAD or DELETE body only when told its length: unframed, its bytes would reach the
    // daemon as the next request on the connection.
    if (sent.body !== undefined) headers['content-length'] = String(sent.body.byteLength);
    let settled = false;
    const settle = (result: Sent) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    let request: ReturnType<typeof httpRequest>;
    try {
      request = httpRequest({ host: '127.0.0.1', port, method: sent.method, path: sent.target, headers, agent });
    } catch (error) {
      return settle({ kind: 'unsendable', why: (error as Error).message });
    }
    const timer = setTimeout(() => {
      settle({ kind: 'no-answer', why: `no answer within ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error) => settle({ kind: 'no-answer', why: error.message }));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const contentType = response.headers['content-type'] ?? null;
      if (status < 400 || sent.method.toUpperCase() === 'HEAD') {
        response.destroy();
        return settle({ kind: 'answer', answer: { status, contentType, body: undefined } });
      }
      const chunks: Buffer[] = [];
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        length += chunk.length;
        if (length <= MAX_ERROR_BODY) chunks.push(chunk);
        else response.destroy();
      });
      // No body at all: Node's own HTTP parser refused the request before the daemon saw it (431 for headers past
      // 16 KiB): there is no dialect to answer in yet (./malformed-oracle.ts counts it apart).
      const answer = () => ({ kind: 'answer' as const, answer: { status, contentType, body: length === 0 ? undefined : Buffer.concat(chunks).toString('utf8') } });
      response.on('error', () => settle(answer()));
      response.on('end', () => settle(answer()));
    });
    request.end(sent.body === undefined ? undefined : Buffer.from(sent.body));
  });
}
