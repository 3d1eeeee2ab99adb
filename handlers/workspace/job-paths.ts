/**
 * The `{repo}` (and `{app}`) path parameters of the job calls, `/workspace/repos/{repo}/apps…` and
 * `…/{repo}/tests`: each one percent-encoded segment (oRPC encodes a nested id's `/` as `%2F`), decoded here.
 */
import { WorkspaceError } from '../../core/errors/workspace-error.ts';

export function repoPathParams(request: Request): { repo: string; app?: string } {
  const path = new URL(request.url).pathname;
  const match = /\/workspace\/repos\/([^/]+)\/(?:apps(?:\/([^/]+)\/(?:start|stop))?|tests)$/.exec(path);
  if (!match) throw new WorkspaceError('not-found', `no such call: ${path}`);
  const decode = (segment: string, what: string) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw new WorkspaceError('bad-request', `invalid path: ${what} is not valid percent-encoding`);
    }
  };
  const repo = decode(match[1]!, 'the repo');
  return match[2] === undefined ? { repo } : { repo, app: decode(match[2], 'the app') };
}
