/**
 * The one HTTP client both sides of every figure use: undici's `request` over a keep-alive pool.
 * Bodies are always read to the end, so a figure covers the whole response.
 */
import { Agent, request } from 'undici';

export const agent = new Agent({ connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });

export interface FetchedBody {
  status: number;
  bytes: number;
}

/** GETs `url`, counts the body's bytes without keeping them. */
export async function drain(url: string, headers: Record<string, string> = {}): Promise<FetchedBody> {
  const response = await request(url, { dispatcher: agent, headers, bodyTimeout: 120_000, headersTimeout: 60_000 });
  let bytes = 0;
  for await (const chunk of response.body) bytes += (chunk as Buffer).length;
  return { status: response.statusCode, bytes };
}

/** GETs `url` and parses JSON; throws on a non-2xx status so a broken endpoint never produces a figure. */
export async function getJson<T>(url: string, headers: Record<string, string> = {}): Promise<T> {
  const response = await request(url, { dispatcher: agent, headers, bodyTimeout: 120_000, headersTimeout: 120_000 });
  const text = await response.body.text();
  if (response.statusCode < 200 || response.statusCode >= 300) {
    throw new Error(`GET ${url} → ${response.statusCode}: ${text.slice(0, 300)}`);
  }
  return JSON.parse(text) as T;
}

export function closeClient(): Promise<void> {
  return agent.close();
}
