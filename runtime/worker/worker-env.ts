import { generateToken, type AuthConfig } from '../auth.ts';
import { workspaceToken } from './workspace-token.ts';

/**
 * The Worker's bindings (wrangler.toml [vars] / `wrangler secret put` / [[durable_objects.bindings]]):
 * - WORKSPACE_TOKEN         the deployment's token (a secret): it opens every workspace.
 * - WORKSPACE_TOKEN_SECRET  optional (a secret): per-workspace tokens, HMAC of the id (./workspace-token.ts).
 * - WORKSPACE_NO_AUTH       "true" runs open, for a Worker already behind a gateway that authenticates.
 * - WORKSPACE_ALLOW_ORIGIN  comma-separated browser origins allowed by CORS and for WebSocket upgrades ("*": any).
 * - WORKSPACE_MAX_FILE_BYTES the largest file an upload may write (default 100 MiB: an object's storage is not a disk).
 * - WORKSPACES              the Durable Object namespace of WorkspaceObject: one object per workspace id.
 */
export interface WorkerEnv {
  WORKSPACE_TOKEN?: string;
  WORKSPACE_TOKEN_SECRET?: string;
  WORKSPACE_NO_AUTH?: string;
  WORKSPACE_ALLOW_ORIGIN?: string;
  WORKSPACE_MAX_FILE_BYTES?: string;
  WORKSPACES?: DurableObjectNamespaceLike;
}

/** An upload's cap on the edge when WORKSPACE_MAX_FILE_BYTES says nothing (or nothing sensible). */
export const DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024;

export function maxFileBytesOf(env: WorkerEnv): number {
  const value = Number(env.WORKSPACE_MAX_FILE_BYTES?.trim() || NaN);
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_MAX_FILE_BYTES;
}

/** The part of a Durable Object namespace binding the Worker uses. */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

export function allowedOriginsOf(env: WorkerEnv): string[] {
  return (env.WORKSPACE_ALLOW_ORIGIN ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
}

const tokenOf = (env: WorkerEnv) => env.WORKSPACE_TOKEN?.trim() || undefined;
const secretOf = (env: WorkerEnv) => env.WORKSPACE_TOKEN_SECRET?.trim() || undefined;
const isOpen = (env: WorkerEnv) => env.WORKSPACE_NO_AUTH?.trim().toLowerCase() === 'true';

/**
 * Why the deployment cannot serve workspaces yet, or undefined. With no token, no secret and no explicit
 * WORKSPACE_NO_AUTH, the Node CLI would print a generated token; a Worker has no console anyone reads, so a
 * generated token would lock everyone out, and running open would publish every workspace by omission.
 */
export function unconfiguredReason(env: WorkerEnv): string | undefined {
  if (tokenOf(env) || secretOf(env) || isOpen(env)) return undefined;
  return (
    'this deployment has no token configured: set the WORKSPACE_TOKEN secret (wrangler secret put WORKSPACE_TOKEN), ' +
    'or set WORKSPACE_NO_AUTH="true" to run it without auth behind a gateway that authenticates'
  );
}

/** A workspace's auth: the deployment token and, with a secret, that workspace's own token. */
export async function workspaceAuth(env: WorkerEnv, id: string): Promise<AuthConfig> {
  const token = tokenOf(env);
  const secret = secretOf(env);
  // A configured token always wins over WORKSPACE_NO_AUTH: a stray var must not open a deployment that has one.
  if (!token && !secret && isOpen(env)) return { disabled: true };
  const own = secret ? await workspaceToken(secret, id) : undefined;
  if (token) return { token, ...(own ? { alsoAccept: [own] } : {}) };
  // Unconfigured deployments never reach here (the Worker answers 503): an unguessable token keeps it shut anyway.
  return { token: own ?? generateToken() };
}
