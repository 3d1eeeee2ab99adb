/**
 * How Intentic's byte routes (`raw`, `media`) answer with a resolved file: through the one ServeContent port
 * `/api/raw` uses (validators, preconditions, ranges), typed by extension only and never sniffed, the version
 * as ETag (`nosniff` tells the browser to keep that type; a sandbox keeps a served page out of our origin), streamed from the view the file was resolved in,
 * refusals as `{error}`. `headers` are the route's own.
 */
import { entityTag } from '../../runtime/http/entity-tag.ts';
import { mediaTypeByExtension } from '../../runtime/http/media-type.ts';
import { serveContent } from '../../runtime/http/serve-content.ts';
import { SERVED_BYTES_HEADERS } from '../../runtime/http/served-bytes-headers.ts';
import { bytesRouteError } from './bytes-route-error.ts';
import type { ServedFile } from './served-file.ts';

export function serveFileBytes(request: Request, served: ServedFile, headers: Record<string, string> = {}): Promise<Response> {
  const { view, file, stat } = served;
  return serveContent(request, {
    size: stat.size,
    modtime: stat.mtimeMs,
    etag: entityTag(stat.version),
    contentType: mediaTypeByExtension(file),
    open: (range, read) => view.fs.readStream(file, range, read),
    headers: { ...SERVED_BYTES_HEADERS, ...headers },
    renderError: bytesRouteError,
  });
}
