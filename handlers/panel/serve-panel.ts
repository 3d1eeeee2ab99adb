import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import type { PanelAsset } from '../../runtime/panel/panel-assets.ts';

/**
 * The web panel's routes (docs/panel.md): `GET /` the page, `GET /panel/{file}` its bundles, `GET /docs` the API
 * reference. Public, like `/healthz`: these are the same static files for every workspace and reveal nothing of
 * this one — the page asks for the token and every call it makes goes through the guarded routes.
 */

/** An asset name: the bundle's own names (`app-3KD9Q2.js`, `chunks/python-X1.js`); nothing that climbs. */
export const panelAssetParams = z.object({
  file: z.string().regex(/^(?:chunks\/)?[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'not a panel file'),
});

/** The page's policy, by directive: its own scripts and styles only, calls to itself only, nothing framed. */
const PAGE_DIRECTIVES: Record<string, string> = {
  'default-src': "'self'",
  'script-src': "'self'",
  // CodeMirror and xterm set element styles and add <style> rules at run time.
  'style-src': "'self' 'unsafe-inline'",
  'img-src': "'self' blob: data:",
  'media-src': "'self' blob:",
  // 'self' covers this origin's ws: and wss: too (CSP 3); no other host is reachable.
  'connect-src': "'self'",
  'frame-ancestors': "'none'",
  'base-uri': "'none'",
  'form-action': "'none'",
};

const policyOf = (directives: Record<string, string>) =>
  Object.entries(directives)
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');

const PAGE_POLICY = policyOf(PAGE_DIRECTIVES);

/** `GET /`: the panel's page. Needs a trailing slash: its files are named relative to it (a gateway's base path too). */
export async function panelPage(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const url = new URL(request.url);
  if (!url.pathname.endsWith('/')) return redirect(`${url.pathname}/${url.search}`);
  return serveAsset(request, ctx, 'index.html', PAGE_POLICY);
}

/** `GET /docs`: the API reference over `openapi.json`. */
export async function apiReferencePage(request: Request, ctx: WorkspaceContext): Promise<Response> {
  return serveAsset(request, ctx, 'docs.html', PAGE_POLICY) // the reference's renderer needs nothing more;
}

/** `GET /panel/{file}` (and `/panel/chunks/{file}`): a bundle, by its content-hashed name. */
export async function panelFile(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const url = new URL(request.url);
  const at = url.pathname.lastIndexOf('/panel/');
  // A name that is not one of ours is simply not there: the panel's files are all the bundle's own names.
  const parsed = panelAssetParams.safeParse({ file: url.pathname.slice(at + '/panel/'.length) });
  if (!parsed.success) return jsonResponse({ error: 'not found' }, 404);
  return serveAsset(request, ctx, parsed.data.file, PAGE_POLICY);
}

async function serveAsset(request: Request, ctx: WorkspaceContext, name: string, policy: string): Promise<Response> {
  if (!ctx.panel) return jsonResponse({ error: 'this server has no web panel (started with --no-panel, or mounted without one)' }, 404);
  let asset: PanelAsset | undefined;
  try {
    asset = await ctx.panel.get(name);
  } catch {
    // The reason (a build error, with the server's paths) is for the operator's log, not for anyone who asks.
    return jsonResponse({ error: "the web panel could not be built; the server's log says why" }, 503);
  }
  if (!asset) return jsonResponse({ error: 'not found' }, 404);
  const headers = new Headers({
    'content-type': asset.contentType,
    etag: asset.etag,
    'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    'x-content-type-options': 'nosniff',
    // The page is opened as `/?token=…`: no request it makes may carry that URL elsewhere.
    'referrer-policy': 'no-referrer',
  });
  if (asset.contentType.startsWith('text/html')) headers.set('content-security-policy', policy);
  if (request.headers.get('if-none-match') === asset.etag) return new Response(null, { status: 304, headers });
  return new Response(request.method === 'HEAD' ? null : asset.body, { status: 200, headers });
}

function redirect(location: string): Response {
  return new Response(null, { status: 308, headers: { location } });
}
