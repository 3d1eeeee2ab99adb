/**
 * The headers every answer carrying a workspace file's own bytes has (`/api/raw`, `/workspace/raw`,
 * `/workspace/media`; docs/architecture.md#security-defaults). Workspace files are whatever an agent or a clone put
 * there: an `.html` or `.svg` opened from one of these URLs would otherwise run in the daemon's origin — where the
 * panel keeps its token — and act with it.
 *
 * - `nosniff`: the browser keeps the type we send; an unlisted file stays inert `application/octet-stream`.
 * - `sandbox allow-scripts`: the document gets an opaque origin of its own. A previewed page still runs its
 *   scripts, but reads nothing of the daemon's origin (storage, cookies) and its requests to the daemon arrive as
 *   `Origin: null`, which the Origin check refuses for anything that acts (runtime/cors.ts). Images, video and
 *   downloads are unaffected.
 */
export const SERVED_BYTES_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': 'sandbox allow-scripts',
};
